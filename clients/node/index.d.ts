// Copyright 2026 the delayqueue authors. Licensed under the Apache License, Version 2.0.
// Types of the delayqueue producer client (producer protocol v1, docs/protocol.md).
import type { Redis, Cluster } from 'ioredis';

export const PROTOCOL_VERSION: 1;

export type Status = 'SCHEDULED' | 'READY' | 'DUPLICATE' | 'REPLACED' | 'REFUSED';

export interface SendOptions {
  /** Due after this many milliseconds (Redis clock); give this or `at`, or neither (due at once). */
  delayMs?: number;
  /** Due at this time: a Date or epoch milliseconds. */
  at?: Date | number;
  /** The message id (1–256 bytes of UTF-8); generated when absent. */
  id?: string;
  /** The key: its partition, its order. */
  key?: string;
  headers?: Record<string, string>;
  /** 0 (none) to 9. */
  priority?: number;
  /** Time to live from the due time, 1 ms to 3,650 days. */
  expireAfterMs?: number;
  /** At least 1; absent: the listener's retry policy. */
  maxAttempts?: number;
  /** Replace a scheduled message of the same id (needs `id`). */
  replace?: boolean;
}

export interface Message extends SendOptions {
  queue: string;
  payload: Buffer | Uint8Array | string;
}

export interface SendResult {
  queue: string;
  id: string;
  status: Status;
  /** The due time (Redis clock); null when refused. */
  due: Date | null;
  dueMs: number | null;
  /** When refused: the queue's size limit. */
  limit?: number;
}

export interface ProducerOptions {
  /** The Java engines' key prefix, default 'dq'. */
  prefix?: string;
  /** The queues declared fair-share on the Java side. */
  fairShare?: Iterable<string>;
  /** The Java engines' compactAfter in ms (default 120000; 0: no far tier). */
  compactAfterMs?: number;
  /** The Java engines' compactMinimum (default 64). */
  compactMinimum?: number;
  /**
   * The longest a send, cancel or reschedule waits for Redis, in ms (default 2000; sendAll: each
   * script call of up to 500 messages). Past it the call rejects with OperationTimeoutError: it
   * may have been applied, so retry a send with the same message ids.
   */
  operationTimeoutMs?: number;
}

export class Producer {
  constructor(redis: Redis | Cluster, options?: ProducerOptions);
  readonly operationTimeoutMs: number;
  /** The queue's partition count, read from Redis (again after 5 s). */
  partitions(queue: string, refresh?: boolean): Promise<number>;
  /** Sends one message; rejects with QueueFullError when the queue is at its size limit. */
  send(queue: string, payload: Buffer | Uint8Array | string, options?: SendOptions): Promise<SendResult>;
  /** Sends messages (one script call per partition and 500); refused ones have status 'REFUSED'. */
  sendAll(messages: Message[]): Promise<SendResult[]>;
  /** Cancels a scheduled message; true when it was scheduled. */
  cancel(queue: string, id: string, options?: { key?: string }): Promise<boolean>;
  /** Moves a scheduled message to a new time; true when it was scheduled. */
  reschedule(queue: string, id: string, options: { delayMs?: number; at?: Date | number; key?: string }): Promise<boolean>;
}

export class DelayQueueError extends Error {}
export class ProtocolVersionError extends DelayQueueError {}
/** Redis did not answer within operationTimeoutMs; the operation may have been applied. */
export class OperationTimeoutError extends DelayQueueError {
  timeoutMs: number;
  /** The ids whose send may have been applied (generated ones included): retry with them. */
  ids: string[];
  /** sendAll: the answers of the script calls before it (undefined: not answered). */
  results?: Array<SendResult | undefined>;
}
export class QueueFullError extends DelayQueueError {
  queue: string;
  id: string;
  limit: number;
}
