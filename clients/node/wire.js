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

// The wire format of producer protocol v1 (docs/protocol.md): names, envelope, keys, partitions.

const PROTOCOL_VERSION = 1;
const MAX_NAME_LENGTH = 100;
const MAX_ID_BYTES = 256;
const MAX_PRIORITY = 9;
const MAX_EXPIRE_AFTER_MS = 3650 * 24 * 3600 * 1000;
const MAX_DUE_MS = 253402300799999; // 9999-12-31T23:59:59.999Z
const MIN_DUE_MS = -62167219200000; // 0000-01-01T00:00:00Z
const MAX_PARTITIONS = 1024;
const SLOTS = 16384;
const TICK_PREFIX = 'schedule/';
const NAME = /^[A-Za-z0-9._:-]+$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

// a high surrogate not followed by a low one, or a low one not after a high one
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A value for an error message: its first 40 characters, control characters and lone surrogates as \uXXXX. */
function shown(value) {
  const text = value.length > 40 ? `${value.slice(0, 40)}...` : value;
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** What a value of the wrong type was, for an error message: "number (123)", "a Buffer", "null". */
function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Buffer.isBuffer(value)) return 'a Buffer';
  if (value instanceof Uint8Array) return 'a Uint8Array';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `string ('${shown(value)}')`;
  if (typeof value === 'object') {
    const type = value.constructor && value.constructor.name;
    return !type || type === 'Object' ? 'an object' : `a ${type}`;
  }
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  const text = String(value);
  return `${typeof value} (${text.length > 40 ? `${text.slice(0, 40)}...` : text})`;
}

/** Refuses a string UTF-8 cannot encode: one with a lone surrogate would reach Redis as U+FFFD. */
function checkText(what, value, show = true) {
  const lone = LONE_SURROGATE.exec(value);
  if (lone) {
    const code = lone[0].charCodeAt(0).toString(16).toUpperCase();
    throw new TypeError(`${what}${show ? ` '${shown(value)}'` : ''} must be valid UTF-16: it has a lone surrogate `
      + `(U+${code}) at index ${lone.index}, which UTF-8 cannot encode (it would become U+FFFD)`);
  }
  return value;
}

function checkName(what, name) {
  if (name == null || name === '') {
    throw new TypeError(`${what} name must not be null or empty`);
  }
  if (typeof name !== 'string') {
    throw new TypeError(`${what} name must be a string, but was ${describe(name)}`);
  }
  if (name.length > MAX_NAME_LENGTH) {
    throw new RangeError(`${what} name must be at most ${MAX_NAME_LENGTH} characters, but is ${name.length}`);
  }
  if (!NAME.test(name)) {
    throw new TypeError(`${what} name '${shown(name)}' must contain only letters, digits, '.', '_', ':' and '-'`);
  }
  return name;
}

function checkId(what, value) {
  if (value == null || value === '') {
    throw new TypeError(`${what} must not be null or empty`);
  }
  if (typeof value !== 'string') {
    throw new TypeError(`${what} must be a string, but was ${describe(value)}`);
  }
  checkText(what, value);
  if (Buffer.byteLength(value, 'utf8') > MAX_ID_BYTES) {
    throw new RangeError(`${what} must be at most ${MAX_ID_BYTES} bytes in UTF-8 ('${shown(value)}')`);
  }
  if (CONTROL.test(value)) {
    throw new TypeError(`${what} '${shown(value)}' must not contain control characters`);
  }
  return value;
}

function checkMessageId(value) {
  checkId('Message id', value);
  if (value.startsWith(TICK_PREFIX)) {
    throw new TypeError(`Message id '${shown(value)}' starts with '${TICK_PREFIX}', which is reserved for the messages of recurring schedules`);
  }
  return value;
}

function varint(out, value) {
  let remaining = value;
  while (remaining > 0x7f) {
    out.push((remaining & 0x7f) | 0x80);
    remaining = Math.floor(remaining / 128);
  }
  out.push(remaining);
}

function string(out, value) {
  const bytes = Buffer.from(value, 'utf8');
  varint(out, bytes.length);
  for (const b of bytes) out.push(b);
}

function headersSize(headers) {
  let size = 0;
  for (const [name, value] of Object.entries(headers)) {
    size += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value, 'utf8') + 2;
  }
  return size;
}

/** The envelope: a version byte with flags, then expiry, priority, key, attempts, headers, payload. */
function envelope(payload, headers, maxAttempts, expireAfterMs, key, priority) {
  const out = [];
  out.push(1 + (expireAfterMs > 0 ? 1 : 0) + (key != null ? 2 : 0) + (priority > 0 ? 4 : 0));
  if (expireAfterMs > 0) {
    for (const c of String(expireAfterMs).padStart(13, '0')) out.push(c.charCodeAt(0));
  }
  if (priority > 0) out.push(0x30 + priority);
  if (key != null) string(out, key);
  varint(out, maxAttempts);
  const entries = Object.entries(headers);
  varint(out, entries.length);
  for (const [name, value] of entries) {
    string(out, name);
    string(out, value);
  }
  return Buffer.concat([Buffer.from(out), payload]);
}

/** Redis Cluster's slot of a hash tag: CRC16 (XMODEM) of its UTF-8 bytes, modulo 16384. */
function slot(text) {
  let crc = 0;
  for (const b of Buffer.from(text, 'utf8')) {
    crc ^= b << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = (crc & 0x8000) ? ((crc << 1) ^ 0x1021) : (crc << 1);
      crc &= 0xffff;
    }
  }
  return crc % SLOTS;
}

function range(s, partitions) {
  return Math.floor((s * partitions) / SLOTS);
}

/** The hash tag of a partition: partition 0 keeps the queue's name, the others spread over the slots. */
function partitionTag(queue, partition, partitions) {
  if (partition === 0) return queue;
  const taken = range(slot(queue), partitions);
  const wanted = (partition - 1 < taken) ? partition - 1 : partition;
  const base = `${queue}#${partition}`;
  if (range(slot(base), partitions) === wanted) return base;
  for (let attempt = 1; ; attempt++) {
    const candidate = `${base}.${attempt}`;
    if (range(slot(candidate), partitions) === wanted) return candidate;
  }
}

const CRC32_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = (c & 1) ? (0xedb88320 ^ (c >>> 1)) : (c >>> 1);
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC32_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The default partitioner: CRC-32 of the key's UTF-8 bytes, modulo the partition count. */
function partitionOf(key, partitions) {
  if (partitions <= 1) return 0;
  return crc32(Buffer.from(key, 'utf8')) % partitions;
}

/** The keys of one partition of a queue: P:{tag}:suffix. */
class Keys {
  constructor(prefix, queue, tag) {
    this.prefix = prefix;
    this.queue = queue;
    this.tag = tag;
  }

  key(suffix) {
    return `${this.prefix}:{${this.tag}}:${suffix}`;
  }

  sendKeys() {
    return ['delayed', 'msgs', 'stream', 'retired', 'max-waiting', 'urgent', 'fair', 'fair-state', 'far', 'far-state']
      .map((s) => this.key(s));
  }

  cancelKeys() {
    return ['delayed', 'msgs', 'schedules', 'far', 'far-state'].map((s) => this.key(s));
  }

  rescheduleKeys() {
    return ['delayed', 'msgs', 'stream', 'urgent', 'far', 'far-state'].map((s) => this.key(s));
  }

  wakeChannel() {
    return this.key('wake');
  }
}

module.exports = {
  PROTOCOL_VERSION, MAX_PRIORITY, MAX_EXPIRE_AFTER_MS, MAX_DUE_MS, MIN_DUE_MS, MAX_PARTITIONS,
  checkName, checkId, checkMessageId, checkText, shown, describe, headersSize, envelope, slot, partitionTag, partitionOf, crc32, Keys,
};
