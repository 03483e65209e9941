// Copyright 2026 the delayqueue authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//      https://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.
'use strict';

// A producer of delayqueue's protocol v1 on ioredis (a Redis or a Cluster client).

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const wire = require('./wire');

const MAX_PAYLOAD = 1024 * 1024;
const MAX_HEADERS = 16 * 1024;
const MAX_ATTEMPTS = 2 ** 31 - 1;
const CHUNK = 500;
const LAYOUT_MS = 5000;
const STATUSES = [null, 'SCHEDULED', 'READY', 'DUPLICATE', 'REPLACED', 'REFUSED'];

class DelayQueueError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'DelayQueueError';
  }
}

class ProtocolVersionError extends DelayQueueError {
  constructor(message) {
    super(message);
    this.name = 'ProtocolVersionError';
  }
}

/**
 * Redis did not answer within the producer's operation timeout. The operation may have been
 * applied (the command may still run once Redis answers again): retry a send with the same
 * message ids (ids, generated ones included), which then answers DUPLICATE if it was. In a
 * sendAll of several script calls, results holds the answers of those before (undefined: not
 * answered).
 */
class OperationTimeoutError extends DelayQueueError {
  constructor(message, timeoutMs, ids, results = undefined) {
    super(message);
    this.name = 'OperationTimeoutError';
    this.timeoutMs = timeoutMs;
    this.ids = ids;
    if (results !== undefined) this.results = results;
  }
}

class QueueFullError extends DelayQueueError {
  constructor(queue, id, limit) {
    super(`Queue '${queue}' is full: it holds its limit of ${limit} waiting messages (message '${id}' was not sent)`);
    this.name = 'QueueFullError';
    this.queue = queue;
    this.id = id;
    this.limit = limit;
  }
}

function script(name) {
  const source = fs.readFileSync(path.join(__dirname, 'scripts', `v${wire.PROTOCOL_VERSION}`, `${name}.lua`), 'utf8');
  return { source, sha: crypto.createHash('sha1').update(source, 'utf8').digest('hex') };
}

// stands for a Redis call that did not answer by its deadline
const TIMED_OUT = Symbol('timed out');

const MESSAGE_FIELDS = new Set(['queue', 'payload', 'delayMs', 'at', 'id', 'key', 'headers', 'priority',
  'expireAfterMs', 'maxAttempts', 'replace']);
const PRODUCER_OPTIONS = new Set(['prefix', 'fairShare', 'compactAfterMs', 'compactMinimum', 'operationTimeoutMs']);
const CANCEL_OPTIONS = new Set(['key']);
const RESCHEDULE_OPTIONS = new Set(['delayMs', 'at', 'key']);

function isInt(value) {
  return Number.isSafeInteger(value);
}

/** Refuses what is not a plain object of known names: a misspelt option would be ignored. */
function checkOptions(what, options, known) {
  if (options == null) return {};
  if (typeof options !== 'object' || Array.isArray(options) || Buffer.isBuffer(options)) {
    throw new TypeError(`${what} must be an object, but was ${wire.describe(options)}`);
  }
  for (const name of Object.keys(options)) {
    if (!known.has(name)) {
      throw new TypeError(`${what}: unknown option '${wire.shown(name)}' (known: ${[...known].join(', ')})`);
    }
  }
  return options;
}

function checkMillis(what, value) {
  if (typeof value !== 'number') throw new TypeError(`${what} must be a number of milliseconds, but was ${wire.describe(value)}`);
  if (!Number.isFinite(value)) throw new RangeError(`${what} must be a finite number of milliseconds, but was ${value}`);
  return Math.ceil(value);
}

function epochMillis(at) {
  if (at instanceof Date) {
    if (Number.isNaN(at.getTime())) throw new TypeError('A time (at) must be a valid Date');
    return at.getTime();
  }
  if (typeof at === 'number') return checkMillis('A time (at)', at);
  throw new TypeError(`A time (at) must be a Date or epoch milliseconds, but was ${wire.describe(at)}`);
}

function checkAt(ms) {
  if (ms > wire.MAX_DUE_MS) throw new RangeError(`Delivery time must be at most 9999-12-31T23:59:59.999Z, but was ${ms}`);
  if (ms < wire.MIN_DUE_MS) throw new RangeError(`Delivery time must be at least 0000-01-01T00:00:00Z, but was ${ms}`);
  return ms;
}

/**
 * Sends, cancels and reschedules messages of delayqueue queues, for Java consumers.
 */
class Producer {
  /**
   * @param redis an ioredis Redis or Cluster client
   * @param options prefix ('dq'), fairShare (queue names), compactAfterMs (120000, 0: no far
   *   tier), compactMinimum (64): the Java engines' settings; operationTimeoutMs (2000): the
   *   longest a send, cancel or reschedule waits for Redis (sendAll: per script call)
   */
  constructor(redis, options = {}) {
    const {
      prefix = 'dq', fairShare = [], compactAfterMs = 120000, compactMinimum = 64, operationTimeoutMs = 2000,
    } = checkOptions('Producer options', options, PRODUCER_OPTIONS);
    if (redis == null || typeof redis.evalsha !== 'function' || typeof redis.hmget !== 'function') {
      throw new TypeError(`The first argument must be an ioredis Redis or Cluster client, but was ${wire.describe(redis)}`);
    }
    if (typeof prefix !== 'string') throw new TypeError(`Key prefix must be a string, but was ${wire.describe(prefix)}`);
    if (!/^[A-Za-z0-9._:-]{1,64}$/.test(prefix)) {
      throw new TypeError(`Key prefix '${wire.shown(prefix)}' must be 1 to 64 of letters, digits, '.', '_', ':' and '-'`);
    }
    if (typeof fairShare === 'string' || fairShare == null || typeof fairShare[Symbol.iterator] !== 'function') {
      throw new TypeError(`fairShare must be an array (or another iterable) of queue names, but was ${wire.describe(fairShare)}`);
    }
    if (!isInt(compactAfterMs) || compactAfterMs < 0) {
      throw new RangeError(`compactAfterMs must be 0 (no far tier) or a positive integer, but was ${wire.describe(compactAfterMs)}`);
    }
    if (!isInt(compactMinimum) || compactMinimum < 1) {
      throw new RangeError(`compactMinimum must be an integer of at least 1, but was ${wire.describe(compactMinimum)}`);
    }
    if (!isInt(operationTimeoutMs) || operationTimeoutMs < 1 || operationTimeoutMs > 2 ** 31 - 1) {
      throw new RangeError(`operationTimeoutMs must be a whole number of milliseconds from 1 to ${2 ** 31 - 1}, `
        + `but was ${wire.describe(operationTimeoutMs)}`);
    }
    this.redis = redis;
    this.prefix = prefix;
    this.fair = new Set([...fairShare].map((q) => wire.checkName('Queue', q)));
    this.compact = compactAfterMs > 0 ? `${compactAfterMs}:${compactMinimum}` : '0';
    this.operationTimeoutMs = operationTimeoutMs;
    this.scripts = { send: script('send'), cancel: script('cancel'), reschedule: script('reschedule') };
    this.layouts = new Map();
    this.registered = new Set();
  }

  /**
   * Calls Redis and waits for its answer until the deadline at most; then rejects with
   * TIMED_OUT (the call itself is not taken back: Redis may still run it).
   */
  async call(deadline, work) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw TIMED_OUT;
    let timer;
    const answer = Promise.resolve().then(work);
    const timedOut = new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(TIMED_OUT), remaining);
    });
    try {
      return await Promise.race([answer, timedOut]);
    } finally {
      clearTimeout(timer);
      // an answer after the deadline goes nowhere
      answer.catch(() => {});
    }
  }

  /** Runs an operation with a deadline of operationTimeoutMs from now; a timeout becomes OperationTimeoutError. */
  async bounded(timedOut, operation) {
    try {
      return await operation(Date.now() + this.operationTimeoutMs);
    } catch (ex) {
      if (ex === TIMED_OUT) throw timedOut();
      throw ex;
    }
  }

  /** The queue's partition count, read from P:{queue}:meta (absent: 1), again after 5 seconds. */
  async partitions(queue, refresh = false) {
    wire.checkName('Queue', queue);
    return this.bounded(() => new OperationTimeoutError(`Cannot read the partition count of queue '${queue}': `
      + `Redis did not answer within ${this.operationTimeoutMs} ms`, this.operationTimeoutMs, []),
    (deadline) => this.layout(queue, refresh, deadline));
  }

  async layout(queue, refresh, deadline) {
    const known = this.layouts.get(queue);
    if (known && !refresh && Date.now() - known.at < LAYOUT_MS) return known.count;
    const meta = new wire.Keys(this.prefix, queue, queue).key('meta');
    const [count, protocol] = await this.call(deadline, () => this.redis.hmget(meta, 'partitions', 'protocol'));
    if (protocol != null && protocol !== String(wire.PROTOCOL_VERSION)) {
      throw new ProtocolVersionError(`Queue '${queue}' speaks producer protocol ${protocol}; this client speaks `
        + `${wire.PROTOCOL_VERSION}: upgrade the client (docs/protocol.md)`);
    }
    const partitions = count != null ? Number(count) : 1;
    if (!isInt(partitions) || partitions < 1 || partitions > wire.MAX_PARTITIONS) {
      throw new DelayQueueError(`Queue '${queue}' declares ${count} partitions, outside 1 to ${wire.MAX_PARTITIONS}`);
    }
    this.layouts.set(queue, { count: partitions, at: Date.now() });
    if (!this.registered.has(queue)) {
      await this.call(deadline, () => this.redis.sadd(`${this.prefix}:queues`, queue));
      this.registered.add(queue);
    }
    return partitions;
  }

  keys(queue, partition, partitions) {
    return new wire.Keys(this.prefix, queue, wire.partitionTag(queue, partition, partitions));
  }

  async run(deadline, name, keys, args) {
    const { source, sha } = this.scripts[name];
    try {
      return await this.call(deadline, () => this.redis.evalsha(sha, keys.length, ...keys, ...args));
    } catch (ex) {
      if (!String(ex && ex.message).startsWith('NOSCRIPT')) throw ex;
      return this.call(deadline, () => this.redis.eval(source, keys.length, ...keys, ...args));
    }
  }

  /**
   * Sends one message; a queue over its size limit rejects with QueueFullError, a Redis that
   * does not answer within operationTimeoutMs with OperationTimeoutError.
   */
  async send(queue, payload, options = {}) {
    const message = { ...checkOptions('Send options', options, MESSAGE_FIELDS), queue, payload };
    const [result] = await this.sendMessages([message], Date.now() + this.operationTimeoutMs, false);
    if (result.status === 'REFUSED') throw new QueueFullError(queue, result.id, result.limit);
    return result;
  }

  /**
   * Sends messages, one script call per partition and 500 messages; refused ones have status
   * REFUSED. Every message is checked first: one bad message fails the call and sends none.
   * Each script call (and each read of a queue's layout) waits operationTimeoutMs at most.
   */
  async sendAll(messages) {
    if (!Array.isArray(messages)) throw new TypeError(`sendAll takes an array of messages, but was ${wire.describe(messages)}`);
    return this.sendMessages(messages, null, true);
  }

  /** Sends messages by one deadline, or (null) each Redis call by a deadline of its own. */
  async sendMessages(messages, deadline, indexed) {
    const prepared = messages.map((m, i) => this.prepare(m, indexed ? i : null));
    const due = () => (deadline != null ? deadline : Date.now() + this.operationTimeoutMs);
    const results = new Array(prepared.length);
    const layouts = new Map();
    const groups = new Map();
    let waiting = null;
    try {
      for (let i = 0; i < prepared.length; i++) {
        const { queue, partitionKey } = prepared[i];
        if (!layouts.has(queue)) {
          waiting = { queue, ids: [] };
          layouts.set(queue, await this.layout(queue, false, due()));
        }
        const partitions = layouts.get(queue);
        const group = `${queue}\u0000${partitions}\u0000${wire.partitionOf(partitionKey, partitions)}`;
        if (!groups.has(group)) groups.set(group, []);
        groups.get(group).push(i);
      }
      for (const [group, indexes] of groups) {
        const [queue, partitions, partition] = group.split('\u0000');
        for (let start = 0; start < indexes.length; start += CHUNK) {
          const chunk = indexes.slice(start, start + CHUNK);
          waiting = { queue, ids: chunk.map((i) => prepared[i].id) };
          await this.sendChunk(queue, Number(partitions), Number(partition), chunk, prepared, results, false, due);
        }
      }
    } catch (ex) {
      if (ex !== TIMED_OUT) throw ex;
      throw this.sendTimedOut(waiting, results);
    }
    return results;
  }

  sendTimedOut(waiting, results) {
    const { queue, ids } = waiting;
    const others = ids.length > 0 && ids.length < results.length
      ? '; of the other messages of this call, those before were answered (error.results) and those after were not sent'
      : '';
    if (ids.length === 0) {
      return new OperationTimeoutError(`Cannot send to queue '${queue}': Redis did not answer within `
        + `${this.operationTimeoutMs} ms while the queue's partition count was read; no message of this call was sent`,
      this.operationTimeoutMs, ids, results);
    }
    const shownIds = ids.slice(0, 5).map((id) => `'${wire.shown(id)}'`).join(', ')
      + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
    return new OperationTimeoutError(`Cannot send to queue '${queue}': Redis did not answer within `
      + `${this.operationTimeoutMs} ms; the send may have been applied (message${ids.length > 1 ? 's' : ''} `
      + `${shownIds}, in error.ids): retry with the same message id${ids.length > 1 ? 's' : ''}, which then answer`
      + `${ids.length > 1 ? '' : 's'} DUPLICATE if it was${others}`, this.operationTimeoutMs, ids, results);
  }

  async sendChunk(queue, partitions, partition, chunk, prepared, results, retried, due) {
    const keys = this.keys(queue, partition, partitions);
    const args = [keys.wakeChannel(), chunk.length, partitions, this.fair.has(queue) ? '1' : '0', this.compact];
    for (const i of chunk) {
      const m = prepared[i];
      args.push(m.id, m.envelope, m.kind, m.value, m.mode);
    }
    let reply;
    try {
      reply = await this.run(due(), 'send', keys.sendKeys(), args);
    } catch (ex) {
      if (ex === TIMED_OUT) throw ex;
      if (String(ex && ex.message).startsWith('DQRETIRED') && !retried) {
        // the partition count changed since it was read: read it again, send again
        const current = await this.layout(queue, true, due());
        const regrouped = new Map();
        for (const i of chunk) {
          const p = wire.partitionOf(prepared[i].partitionKey, current);
          if (!regrouped.has(p)) regrouped.set(p, []);
          regrouped.get(p).push(i);
        }
        for (const [p, indexes] of regrouped) {
          await this.sendChunk(queue, current, p, indexes, prepared, results, true, due);
        }
        return;
      }
      throw new DelayQueueError(`Cannot send to queue '${queue}': ${ex && ex.message}`, { cause: ex });
    }
    chunk.forEach((index, i) => {
      const status = STATUSES[Number(reply[2 * i])];
      const value = Number(reply[2 * i + 1]);
      const id = prepared[index].id;
      results[index] = status === 'REFUSED'
        ? { queue, id, status, due: null, dueMs: null, limit: value }
        : { queue, id, status, due: new Date(value), dueMs: value };
    });
  }

  prepare(m, index) {
    const which = index == null ? 'A message' : `Message ${index} of sendAll`;
    if (m == null || typeof m !== 'object' || Array.isArray(m) || Buffer.isBuffer(m)) {
      throw new TypeError(`${which} must be an object, but was ${wire.describe(m)}`);
    }
    checkOptions(which, m, MESSAGE_FIELDS);
    const queue = wire.checkName('Queue', m.queue);
    let payload;
    if (typeof m.payload === 'string') payload = Buffer.from(wire.checkText('Payload (a string)', m.payload, false), 'utf8');
    else if (Buffer.isBuffer(m.payload)) payload = m.payload;
    else if (m.payload instanceof Uint8Array) payload = Buffer.from(m.payload);
    else throw new TypeError(`Payload must be a Buffer, a Uint8Array or a string (the bytes the consumer's codec reads), but was ${wire.describe(m.payload)}`);
    if (payload.length > MAX_PAYLOAD) {
      throw new RangeError(`Payload for queue '${queue}' is ${payload.length} bytes, over the limit of ${MAX_PAYLOAD} bytes`);
    }
    const headers = m.headers == null ? {} : m.headers;
    if (typeof headers !== 'object' || Array.isArray(headers) || headers instanceof Map || Buffer.isBuffer(headers)) {
      throw new TypeError(`Headers must be a plain object of string to string, but were ${wire.describe(headers)}`);
    }
    for (const [name, value] of Object.entries(headers)) {
      wire.checkText('Header name', name);
      if (typeof value !== 'string') {
        throw new TypeError(`Header '${wire.shown(name)}' must have a string value, but was ${wire.describe(value)}`);
      }
      wire.checkText(`Header '${wire.shown(name)}' value`, value);
    }
    if (wire.headersSize(headers) > MAX_HEADERS) {
      throw new RangeError(`Headers for queue '${queue}' are ${wire.headersSize(headers)} bytes, over the limit of ${MAX_HEADERS} bytes`);
    }
    if (m.delayMs != null && m.at != null) throw new TypeError('Give a delay or a time (at), not both');
    let kind;
    let value;
    if (m.at != null) {
      kind = 'a';
      value = checkAt(epochMillis(m.at));
    } else {
      kind = 'd';
      value = m.delayMs != null ? Math.max(0, checkMillis('A delay', m.delayMs)) : 0;
      if (value > wire.MAX_DUE_MS - Date.now()) throw new RangeError(`Delay must end by 9999-12-31T23:59:59.999Z, but was ${m.delayMs} ms`);
    }
    const priority = m.priority == null ? 0 : m.priority;
    if (!isInt(priority)) throw new TypeError(`Priority must be an integer from 0 to ${wire.MAX_PRIORITY}, but was ${wire.describe(priority)}`);
    if (priority < 0 || priority > wire.MAX_PRIORITY) {
      throw new RangeError(`Priority must be from 0 to ${wire.MAX_PRIORITY}, but was ${priority}`);
    }
    let expire = 0;
    if (m.expireAfterMs != null) {
      expire = checkMillis('Expire-after', m.expireAfterMs);
      if (expire < 1 || expire > wire.MAX_EXPIRE_AFTER_MS) {
        throw new RangeError(`Expire-after must be from 1 ms to 3650 days (it counts from the due time), but was ${m.expireAfterMs} ms`);
      }
    }
    let attempts = 0;
    if (m.maxAttempts != null) {
      if (!isInt(m.maxAttempts)) {
        throw new TypeError(`Max attempts must be an integer from 1 to ${MAX_ATTEMPTS}, but was ${wire.describe(m.maxAttempts)}`);
      }
      if (m.maxAttempts < 1 || m.maxAttempts > MAX_ATTEMPTS) {
        throw new RangeError(`Max attempts must be from 1 to ${MAX_ATTEMPTS}, but was ${m.maxAttempts}`);
      }
      attempts = m.maxAttempts;
    }
    if (m.replace != null && typeof m.replace !== 'boolean') {
      throw new TypeError(`replace must be true or false, but was ${wire.describe(m.replace)}`);
    }
    if (m.key != null) wire.checkId('Message key', m.key);
    let id;
    let mode;
    if (m.id == null) {
      if (m.replace) throw new TypeError('replace needs an id: a message with a generated id replaces nothing');
      id = crypto.randomBytes(12).toString('base64url');
      mode = '2';
    } else {
      id = wire.checkMessageId(m.id);
      mode = m.replace ? '1' : '0';
    }
    const env = wire.envelope(payload, headers, attempts, expire, m.key == null ? null : m.key, priority);
    return { queue, partitionKey: m.key != null ? m.key : id, id, envelope: env, kind, value, mode };
  }

  async inEachPartition(queue, id, key, deadline, operation) {
    const partitions = await this.layout(queue, false, deadline);
    const first = wire.partitionOf(key != null ? key : id, partitions);
    if (await operation(this.keys(queue, first, partitions))) return true;
    for (let p = 0; p < partitions; p++) {
      if (p !== first && await operation(this.keys(queue, p, partitions))) return true;
    }
    return false;
  }

  operationTimedOut(what, queue, id, retry) {
    return () => new OperationTimeoutError(`Cannot ${what} message '${wire.shown(id)}' in queue '${queue}': Redis did `
      + `not answer within ${this.operationTimeoutMs} ms; the ${what} may have been applied: ${retry}`,
    this.operationTimeoutMs, [id]);
  }

  /** Cancels a scheduled message; true when it was scheduled (not yet due). */
  async cancel(queue, id, options = {}) {
    wire.checkName('Queue', queue);
    wire.checkId('Message id', id);
    const { key } = checkOptions('Cancel options', options, CANCEL_OPTIONS);
    if (key != null) wire.checkId('Message key', key);
    return this.bounded(this.operationTimedOut('cancel', queue, id, 'a retry then answers false if it was'),
      (deadline) => this.inEachPartition(queue, id, key, deadline,
        async (keys) => Number(await this.run(deadline, 'cancel', keys.cancelKeys(), [id])) === 1));
  }

  /** Moves a scheduled message to a new time ({delayMs} or {at}); true when it was scheduled. */
  async reschedule(queue, id, options) {
    wire.checkName('Queue', queue);
    wire.checkId('Message id', id);
    if (options == null) throw new TypeError('Give a delay or a time (at): reschedule(queue, id, { delayMs }) or { at }');
    const { delayMs, at, key } = checkOptions('Reschedule options', options, RESCHEDULE_OPTIONS);
    if ((delayMs == null) === (at == null)) {
      throw new TypeError('Give a delay or a time (at), exactly one');
    }
    if (key != null) wire.checkId('Message key', key);
    const kind = at != null ? 'a' : 'd';
    const value = at != null ? checkAt(epochMillis(at)) : Math.max(0, checkMillis('A delay', delayMs));
    return this.bounded(this.operationTimedOut('reschedule', queue, id, 'a retry moves it again while it is scheduled'),
      (deadline) => this.inEachPartition(queue, id, key, deadline, async (keys) => {
      const reply = await this.run(deadline, 'reschedule', keys.rescheduleKeys(), [id, kind, value, keys.wakeChannel(), this.compact]);
      return Number(reply[0]) === 1;
    }));
  }
}

module.exports = {
  Producer,
  DelayQueueError,
  ProtocolVersionError,
  QueueFullError,
  OperationTimeoutError,
  PROTOCOL_VERSION: wire.PROTOCOL_VERSION,
};
