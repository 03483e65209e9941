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

// The producer side of the conformance suite (ProducerConformanceContract in delayqueue-core), as
// clients/python/tests/conformance.py: the same messages, the same JSON document on stdout.
//
//   node conformance.js --host 127.0.0.1 --port 7000 [--cluster] [--timeout-ms N] \
//     --phase schedule|deliver|version|retired|surrogates|types|timeout QUEUE

const Redis = require('ioredis');
const { Producer, ProtocolVersionError, OperationTimeoutError } = require('..');
const wire = require('../wire');

const HOUR = 3600 * 1000;

// a small deterministic generator (the payloads need not be Python's, only checked)
function random(seed) {
  let state = seed >>> 0;
  return (n) => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state % n;
  };
}

/** Runs each call that must fail before anything is written; its error message, or null when it did not fail. */
async function refusals(calls) {
  const errors = {};
  for (const [name, call] of Object.entries(calls)) {
    try {
      await call();
      errors[name] = null;
    } catch (ex) {
      if (!(ex instanceof TypeError || ex instanceof RangeError)) throw ex;
      errors[name] = ex.message;
    }
  }
  return errors;
}

async function redisNowMs(client) {
  const node = client.nodes ? client.nodes('master')[0] : client;
  const [seconds, micros] = await node.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

function described(result, payload, headers = {}, key = null, priority = 0, expireMs = 0, attempts = 0) {
  return {
    id: result.id, status: result.status, due: result.dueMs, payload: payload.toString('hex'), headers, key, priority,
    expire_ms: expireMs, max_attempts: attempts,
    envelope: wire.envelope(payload, headers, attempts, expireMs, key, priority).toString('hex'),
  };
}

async function schedule(producer, client, queue, out) {
  const rng = random(7);
  const kinds = [
    { id: 'plain', payload: Buffer.from('plain') },
    { id: 'binary', payload: Buffer.from([...Array(256).keys()]) },
    { id: 'empty', payload: Buffer.alloc(0) },
    { id: 'headers', payload: Buffer.from('{}'), headers: { tenant: 'acme', trace: '\u00e9\u6f22\u{1F600}', '': 'empty' } },
    { id: 'keyed', payload: Buffer.from('k'), key: 'customer-42' },
    { id: 'priority', payload: Buffer.from('p'), priority: 9 },
    { id: 'expiring', payload: Buffer.from('e'), expireAfterMs: 5 * 60 * 1000 },
    { id: 'attempts', payload: Buffer.from('a'), maxAttempts: 3 },
    { id: 'everything', payload: Buffer.from(Array.from({ length: 300 }, () => rng(256))), key: 'k\u00e9y',
      headers: { a: '1', b: '2' }, priority: 4, expireAfterMs: 90 * 1000, maxAttempts: 2 },
    { id: '\u00fcnicode-id', payload: Buffer.from('u') },
  ];
  const scheduled = [];
  for (const kind of kinds) {
    const result = await producer.send(queue, kind.payload, { ...kind, delayMs: HOUR });
    scheduled.push(described(result, kind.payload, kind.headers || {}, kind.key || null, kind.priority || 0,
      kind.expireAfterMs || 0, kind.maxAttempts || 0));
  }
  const at = (await redisNowMs(client)) + 2 * HOUR;
  const first = await producer.send(queue, Buffer.from('first'), { at: new Date(at), id: 'at-time' });
  const duplicate = await producer.send(queue, Buffer.from('second'), { at: at + HOUR, id: 'at-time' });
  const replaced = await producer.send(queue, Buffer.from('third'), { at: at + 2 * HOUR, id: 'replaced-at' });
  const replacement = await producer.send(queue, Buffer.from('fourth'), { at: at + 3 * HOUR, id: 'replaced-at', replace: true });
  scheduled.push(described(first, Buffer.from('first')));
  scheduled.push(described(replacement, Buffer.from('fourth')));
  out.statuses = {
    first: first.status, duplicate: duplicate.status, duplicate_due: duplicate.dueMs, first_due: first.dueMs,
    replaced: replaced.status, replacement: replacement.status,
  };
  const bulk = await producer.sendAll(Array.from({ length: 1200 }, (_, i) => ({
    queue, payload: Buffer.from(`bulk-${i}`), delayMs: HOUR, id: `bulk-${i}`, key: `bk-${i % 7}`,
  })));
  out.bulk = { count: bulk.length, scheduled: bulk.filter((r) => r.status === 'SCHEDULED').length };
  out.scheduled = scheduled;
  out.errors = await refusals({
    queue: () => producer.send('bad queue!', Buffer.from('x')),
    id: () => producer.send(queue, Buffer.from('x'), { id: '' }),
    reserved_id: () => producer.send(queue, Buffer.from('x'), { id: 'schedule/x/1' }),
    c1_id: () => producer.send(queue, Buffer.from('x'), { id: 'a\u0085b' }),
    priority: () => producer.send(queue, Buffer.from('x'), { priority: 10 }),
    expire: () => producer.send(queue, Buffer.from('x'), { expireAfterMs: 0 }),
    attempts: () => producer.send(queue, Buffer.from('x'), { maxAttempts: 0 }),
    both_times: () => producer.send(queue, Buffer.from('x'), { delayMs: HOUR, at }),
    naive_time: () => producer.send(queue, Buffer.from('x'), { at: '2030-01-01' }),
    far_time: () => producer.send(queue, Buffer.from('x'), { at: 253402300800000 }),
    payload: () => producer.send(queue, Buffer.alloc(1024 * 1024 + 1)),
    header: () => producer.send(queue, Buffer.from('x'), { headers: { n: 1 } }),
    replace_without_id: () => producer.send(queue, Buffer.from('x'), { replace: true }),
    payload_type: () => producer.send(queue, 5),
    delay_type: () => producer.send(queue, Buffer.from('x'), { delayMs: '30' }),
    attempts_range: () => producer.send(queue, Buffer.from('x'), { maxAttempts: 2 ** 31 }),
    priority_type: () => producer.send(queue, Buffer.from('x'), { priority: true }),
    headers_type: () => producer.send(queue, Buffer.from('x'), { headers: [['a', 'b']] }),
    bulk_one_bad: () => producer.sendAll([{ queue, payload: Buffer.from('ok'), id: 'never-written' },
      { queue, payload: Buffer.from('x'), priority: -1 }]),
  });
}

// every string input with a lone surrogate, which UTF-8 cannot encode (it would become U+FFFD):
// refused before anything is written; then one good message
async function surrogates(producer, client, queue, out) {
  const x = Buffer.from('x');
  out.errors = await refusals({
    id: () => producer.send(queue, x, { id: 'a\ud800b' }),
    id_high: () => producer.send(queue, x, { id: 'c\ud800x', delayMs: HOUR }),
    id_low: () => producer.send(queue, x, { id: 'c\udc00x', delayMs: HOUR }),
    key: () => producer.send(queue, x, { key: 'k\udfff' }),
    header_value: () => producer.send(queue, x, { headers: { tenant: '\udc00' } }),
    header_name: () => producer.send(queue, x, { headers: { 'a\ud800': 'v' } }),
    payload: () => producer.send(queue, 'caf\u00e9 \ud83d'),
    bulk: () => producer.sendAll([{ queue, payload: x, id: 'never-written' }, { queue, payload: x, id: '\udc00' }]),
    cancel_id: () => producer.cancel(queue, 'c\ud800x'),
    cancel_key: () => producer.cancel(queue, 'control', { key: '\ud800' }),
    reschedule_id: () => producer.reschedule(queue, 'c\udc00x', { delayMs: 1000 }),
    reschedule_key: () => producer.reschedule(queue, 'control', { delayMs: 1000, key: 'k\udc00' }),
    queue: () => producer.send('q\ud800', x),
    fair_share: () => new Producer(client, { fairShare: ['q\udc00'] }),
  });
  out.control = (await producer.send(queue, Buffer.from('control'), { id: 'control', delayMs: HOUR })).status;
}

// inputs of the wrong type: refused with the type expected and the one given; then one good message
async function types(producer, client, queue, out) {
  const x = Buffer.from('x');
  out.errors = await refusals({
    id: () => producer.send(queue, x, { id: 123 }),
    key: () => producer.send(queue, x, { key: Buffer.from('k') }),
    queue: () => producer.send(5, x),
    cancel_id: () => producer.cancel(queue, 123),
    cancel_key: () => producer.cancel(queue, 'control', { key: 5 }),
    reschedule_key: () => producer.reschedule(queue, 'control', { delayMs: 1000, key: 5 }),
    replace: () => producer.send(queue, x, { id: 'replace-typed', replace: 'false' }),
    priority: () => producer.send(queue, x, { priority: '5' }),
    max_attempts: () => producer.send(queue, x, { maxAttempts: '3' }),
    fair_share: () => new Producer(client, { fairShare: 'orders' }),
    header_value: () => producer.send(queue, x, { headers: { n: Buffer.from('1') } }),
    // Node only: a misspelt option (Python's keyword arguments refuse one themselves)
    unknown_option: () => producer.send(queue, x, { delay: HOUR }),
  });
  out.control = (await producer.send(queue, Buffer.from('control'), { id: 'control', delayMs: HOUR })).status;
}

// Redis hung (the test stops it with SIGSTOP between "ready" and the next line, and continues it
// after "waited"): a send fails within the operation timeout; then the same id is sent again
async function timeout(producer, client, queue, out, lines) {
  await producer.partitions(queue);
  process.stdout.write('ready\n');
  await lines.next();
  const started = process.hrtime.bigint();
  try {
    const result = await producer.send(queue, Buffer.from('once'), { id: 'timed-out', delayMs: 1500 });
    out.first = result.status;
  } catch (ex) {
    if (!(ex instanceof OperationTimeoutError)) throw ex;
    out.error = { type: ex.name, message: ex.message, ids: ex.ids, timeout_ms: ex.timeoutMs };
  }
  out.waited_ms = Number(process.hrtime.bigint() - started) / 1e6;
  out.timeout_ms = producer.operationTimeoutMs;
  process.stdout.write('waited\n');
  await lines.next();
  out.retry = (await producer.send(queue, Buffer.from('once'), { id: 'timed-out', delayMs: 1500 })).status;
}

async function deliver(producer, client, queue, out) {
  const rng = random(11);
  const expected = [];
  for (let i = 0; i < 30; i++) {
    const payload = Buffer.from(Array.from({ length: 1 + rng(63) }, () => rng(256)));
    const headers = { n: String(i), 'sent-by': 'node' };
    const result = await producer.send(queue, payload, { delayMs: rng(1500), id: `delayed-${i}`, headers });
    expected.push(described(result, payload, headers));
  }
  for (let i = 0; i < 10; i++) {
    for (const key of ['alpha', 'beta', 'gamma']) {
      const payload = Buffer.from(`${key}-${i}`);
      const result = await producer.send(queue, payload, { delayMs: 300 + 20 * i, key, id: `${key}-${i}` });
      expected.push(described(result, payload, {}, key));
    }
  }
  for (let i = 0; i < 3; i++) {
    const result = await producer.send(queue, Buffer.from('urgent'), { id: `urgent-${i}`, priority: 9 });
    expected.push(described(result, Buffer.from('urgent'), {}, null, 9));
  }
  let result = await producer.send(queue, Buffer.from('lives'), { id: 'lives', delayMs: 200, expireAfterMs: 600000 });
  expected.push(described(result, Buffer.from('lives'), {}, null, 0, 600000));
  await producer.send(queue, Buffer.from('old'), { id: 'replaced', delayMs: 700 });
  result = await producer.send(queue, Buffer.from('new'), { id: 'replaced', delayMs: 1200, replace: true });
  expected.push(described(result, Buffer.from('new')));
  result = await producer.send(queue, Buffer.from('kept'), { id: 'duplicate', delayMs: 900 });
  await producer.send(queue, Buffer.from('dropped'), { id: 'duplicate', delayMs: 100 });
  expected.push(described(result, Buffer.from('kept')));
  await producer.send(queue, Buffer.from('cancelled'), { id: 'cancelled', delayMs: 1500, key: 'alpha' });
  out.cancel = [await producer.cancel(queue, 'cancelled', { key: 'alpha' }), await producer.cancel(queue, 'cancelled')];
  await producer.send(queue, Buffer.from('moved'), { id: 'rescheduled', delayMs: HOUR });
  const at = (await redisNowMs(client)) + 1500;
  out.reschedule = [await producer.reschedule(queue, 'rescheduled', { at: new Date(at) }),
    await producer.reschedule(queue, 'no-such-message', { delayMs: 1000 })];
  expected.push({ id: 'rescheduled', status: 'SCHEDULED', due: at, payload: Buffer.from('moved').toString('hex'),
    headers: {}, key: null, priority: 0, expire_ms: 0, max_attempts: 0 });
  for (const r of await producer.sendAll(Array.from({ length: 5 }, () => ({ queue, payload: Buffer.from('generated') })))) {
    expected.push(described(r, Buffer.from('generated')));
  }
  out.expected = expected;
  out.absent = ['cancelled'];
}

async function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const host = option('--host', '127.0.0.1');
  const port = Number(option('--port'));
  const phase = option('--phase');
  const queue = args[args.length - 1];
  const client = args.includes('--cluster')
    ? new Redis.Cluster([{ host, port }], { redisOptions: { maxRetriesPerRequest: 3 } })
    : new Redis({ host, port, maxRetriesPerRequest: 3 });
  const timeoutMs = option('--timeout-ms', 'default');
  // standard input, a line at a time, for the phases the test steps through
  let reader = null;
  const lines = {
    next() {
      if (reader == null) reader = require('readline').createInterface({ input: process.stdin });
      if (lines.iterator == null) lines.iterator = reader[Symbol.asyncIterator]();
      return lines.iterator.next();
    },
  };
  try {
    const producer = new Producer(client, {
      prefix: option('--prefix', 'dq'),
      ...(timeoutMs !== 'default' ? { operationTimeoutMs: Number(timeoutMs) } : {}),
    });
    const out = { client: require.resolve('..'), partitions: phase !== 'version' ? await producer.partitions(queue) : null };
    if (phase === 'schedule') await schedule(producer, client, queue, out);
    else if (phase === 'deliver') await deliver(producer, client, queue, out);
    else if (phase === 'surrogates') await surrogates(producer, client, queue, out);
    else if (phase === 'types') await types(producer, client, queue, out);
    else if (phase === 'timeout') await timeout(producer, client, queue, out, lines);
    else if (phase === 'retired') {
      // the layout read now goes stale: the Java side changes the partition count and
      // retires the old partitions before it answers
      process.stdout.write('ready\n');
      await lines.next();
      const results = await producer.sendAll(Array.from({ length: 30 }, (_, i) => ({
        queue, payload: Buffer.from(`after-${i}`), id: `after-${i}`, key: `key-${i}`, delayMs: HOUR,
      })));
      out.sent = results.map((r) => ({ id: r.id, status: r.status }));
      out.partitions_after = await producer.partitions(queue);
    } else if (phase === 'version') {
      const refused = async (call) => {
        try {
          await call();
          return null;
        } catch (ex) {
          if (!(ex instanceof ProtocolVersionError)) throw ex;
          return ex.message;
        }
      };
      out.refused = await refused(() => producer.send(queue, Buffer.from('x')));
      out.cancel_refused = await refused(() => producer.cancel(queue, 'x'));
      out.reschedule_refused = await refused(() => producer.reschedule(queue, 'x', { delayMs: 1000 }));
    } else throw new Error(`Unknown phase ${phase}`);
    process.stdout.write(JSON.stringify(out));
  } finally {
    client.disconnect();
    if (reader != null) {
      reader.close();
      process.stdin.destroy();
    }
  }
}

main().catch((ex) => {
  process.stderr.write(`${ex && ex.stack}\n`);
  process.exit(1);
});
