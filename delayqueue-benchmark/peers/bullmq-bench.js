/*
 * Copyright 2026 the delayqueue authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
// BullMQ side of the delayqueue benchmark: burst (addBulk of N jobs due at one instant, a worker
// of concurrency C acks them), memory (N delayed jobs an hour ahead) and sustained (RATE jobs a
// second for SECONDS, each due 100 ms after it is added, as delayqueue's sustained). Usage:
// node bullmq-bench.js burst|memory PORT [N] [C]
// node bullmq-bench.js sustained PORT RATE SECONDS [C]
// node --expose-gc bullmq-bench.js footprint PORT QUEUES [SECONDS] [N]: delayqueue's footprint scenario
// for one process: a Worker of concurrency 4 per queue, idle for SECONDS (30), then N (20000) jobs
// due over 5 s spread over the queues (docs/benchmarks.md, "Footprint")
const { Queue, Worker } = require('bullmq');
const IORedis = require('ioredis');
const [, , scenario, port, nArg, cArg, sArg] = process.argv;
const n = Number(nArg || (scenario === 'memory' ? 100000 : 20000));
const concurrency = Number((scenario === 'sustained' ? sArg : cArg) || 64);
const connection = { host: '127.0.0.1', port: Number(port), maxRetriesPerRequest: null };
const order = (i) => ({ orderId: 'ord-' + String(i).padStart(8, '0'), customer: 'acme-shop', amount: 12345 });
const payload = order(0);

async function info(redis, section) {
  const text = await redis.info(section);
  const out = {};
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

async function burst(redis) {
  const queue = new Queue('bench', { connection });
  let counting = false, acked = 0, lastAck = 0, resolveDone;
  const done = new Promise((r) => (resolveDone = r));
  const worker = new Worker('bench', async () => {}, { connection, concurrency });
  worker.on('completed', () => {
    if (!counting) return;
    acked++;
    lastAck = Date.now();
    if (acked === n) resolveDone();
  });
  // warm-up
  const warm = [];
  for (let i = 0; i < 2000; i++) warm.push({ name: 'w', data: payload, opts: { delay: 100, removeOnComplete: true, removeOnFail: true } });
  await queue.addBulk(warm);
  while ((await queue.getJobCounts('wait', 'delayed', 'active')).delayed + (await queue.getJobCounts('wait')).wait > 0) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  counting = true;
  const stats0 = await info(redis, 'stats');
  const cpu0 = await info(redis, 'cpu');
  const node0 = process.cpuUsage();
  const lead = 3000 + n / 25;
  const due = Date.now() + lead;
  const jobs = [];
  for (let i = 0; i < n; i++) jobs.push({ name: 'o', data: order(i), opts: { delay: due - Date.now(), removeOnComplete: true, removeOnFail: true } });
  const start = process.hrtime.bigint();
  await queue.addBulk(jobs);
  const sendSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  await done;
  const stats1 = await info(redis, 'stats');
  const cpu1 = await info(redis, 'cpu');
  const node1 = process.cpuUsage(node0);
  const redisCpu = (c) => (Number(c.used_cpu_sys) + Number(c.used_cpu_user)) * 1e6;
  console.log(JSON.stringify({ peer: 'bullmq', version: require('bullmq/package.json').version, scenario: 'burst', n, concurrency,
    enqueue_per_s: Math.round(n / sendSeconds), drain_per_s: Math.round(acked / ((lastAck - due) / 1000)),
    redis_commands_per_message: +((stats1.total_commands_processed - stats0.total_commands_processed) / n).toFixed(2),
    // send to ack, as delayqueue's burst reports them: Redis's INFO cpu, and this Node process's CPU
    redis_cpu_us_per_message: +((redisCpu(cpu1) - redisCpu(cpu0)) / n).toFixed(1),
    node_cpu_us_per_message: +((node1.user + node1.system) / n).toFixed(1) }));
  await worker.close();
  await queue.close();
}

async function sustained(redis) {
  const rate = Number(nArg || 20000), seconds = Number(cArg || 60), total = rate * seconds;
  const queue = new Queue('bench', { connection });
  let acked = 0, resolveDone;
  const lateness = [];
  const done = new Promise((r) => (resolveDone = r));
  const worker = new Worker('bench', async (job) => {
    if (job.name === 'o') lateness.push(Date.now() - job.data.due);
  }, { connection, concurrency });
  worker.on('completed', (job) => {
    if (job.name === 'o' && ++acked === total) resolveDone();
  });
  const warm = [];
  for (let i = 0; i < 2000; i++) warm.push({ name: 'w', data: payload, opts: { delay: 100, removeOnComplete: true, removeOnFail: true } });
  await queue.addBulk(warm);
  while ((await queue.getJobCounts('wait', 'delayed', 'active')).delayed + (await queue.getJobCounts('wait')).wait > 0) await new Promise((r) => setTimeout(r, 100));
  const cpu0 = await info(redis, 'cpu');
  const node0 = process.cpuUsage();
  const start = Date.now();
  const perTick = Math.max(1, Math.floor(rate / 100));
  let sent = 0;
  for (let tick = 0; sent < total; tick++) {
    const wait = start + 10 * tick - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const jobs = [];
    const now = Date.now();
    for (let i = sent; i < Math.min(total, sent + perTick); i++) {
      jobs.push({ name: 'o', data: { ...order(i), due: now + 100 }, opts: { delay: 100, removeOnComplete: true, removeOnFail: true } });
    }
    await queue.addBulk(jobs);
    sent += jobs.length;
  }
  const sentPerS = total / ((Date.now() - start) / 1000);
  await Promise.race([done, new Promise((r) => setTimeout(r, 60000))]);
  const cpu1 = await info(redis, 'cpu');
  const node1 = process.cpuUsage(node0);
  const redisCpu = (c) => (Number(c.used_cpu_sys) + Number(c.used_cpu_user)) * 1e6;
  lateness.sort((a, b) => a - b);
  const p = (q) => lateness[Math.min(lateness.length - 1, Math.floor(q * lateness.length))];
  console.log(JSON.stringify({ peer: 'bullmq', version: require('bullmq/package.json').version, scenario: 'sustained', n: total, rate, concurrency,
    sent_per_s: Math.round(sentPerS), complete: acked === total,
    redis_cpu_us_per_message: +((redisCpu(cpu1) - redisCpu(cpu0)) / total).toFixed(1),
    node_cpu_us_per_message: +((node1.user + node1.system) / total).toFixed(1),
    lateness_p50_ms: p(0.5), lateness_p99_ms: p(0.99), lateness_max_ms: lateness[lateness.length - 1] }));
  await worker.close();
  await queue.close();
}

async function commandCalls(redis) {
  const stats = await info(redis, 'commandstats');
  let calls = 0;
  const byCommand = {};
  for (const [key, value] of Object.entries(stats)) {
    if (!key.startsWith('cmdstat_')) continue;
    const c = Number(/calls=(\d+)/.exec(value)[1]);
    byCommand[key.slice(8)] = c;
    calls += c;
  }
  return { calls, byCommand };
}

async function clientIds(redis) {
  return new Set((await redis.client('LIST')).split('\n').filter((l) => l.startsWith('id=')).map((l) => l.split(' ')[0]));
}

function threads() {
  const status = require('fs').readFileSync('/proc/self/status', 'utf8');
  return Number(/Threads:\s+(\d+)/.exec(status)[1]);
}

async function footprint(redis) {
  const queues = Number(nArg || 1), seconds = Number(cArg || 30), messages = Number(sArg || 20000);
  const names = Array.from({ length: queues }, (_, q) => 'fp-' + q);
  const before = await clientIds(redis);
  const lateness = [];
  let warm = 0, measured = 0;
  const started = process.hrtime.bigint();
  const workers = names.map((name) => new Worker(name, async (job) => {
    if (job.name === 'w') warm++;
    else { lateness.push(Date.now() - job.data.due); measured++; }
  }, { connection, concurrency: 4 }));
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  const startupMs = Number(process.hrtime.bigint() - started) / 1e6;
  await new Promise((r) => setTimeout(r, 3000));
  // this probe's own commands in the window: the first INFO commandstats and both INFO cpu
  const calls0 = await commandCalls(redis);
  const cpu0 = await info(redis, 'cpu');
  const node0 = process.cpuUsage();
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const node1 = process.cpuUsage(node0);
  const cpu1 = await info(redis, 'cpu');
  const calls1 = await commandCalls(redis);
  const window = (Date.now() - t0) / 1000;
  const clients = [...(await clientIds(redis))].filter((id) => !before.has(id)).length;
  if (global.gc) global.gc();
  const heap = process.memoryUsage().heapUsed;
  const redisCpu = (c) => (Number(c.used_cpu_sys) + Number(c.used_cpu_user)) * 1e6;
  const byCommand = {};
  for (const [k, v] of Object.entries(calls1.byCommand)) {
    const d = (v - (calls0.byCommand[k] || 0) - (k === 'info' ? 3 : 0)) / window;
    if (d >= 0.05) byCommand[k] = +d.toFixed(2);
  }
  const result = { peer: 'bullmq', version: require('bullmq/package.json').version, scenario: 'footprint', shape: queues + 'x1x1x1',
    startup_ms: +startupMs.toFixed(1), idle_seconds: +window.toFixed(2), connections: clients, threads: threads(),
    heap_after_gc_mb: global.gc ? Math.round(heap / 1048576) : null,
    idle_commands_per_s: +((calls1.calls - calls0.calls - 3) / window).toFixed(2),
    idle_redis_cpu_percent: +((redisCpu(cpu1) - redisCpu(cpu0)) / 1e4 / window).toFixed(2),
    idle_node_cpu_percent: +((node1.user + node1.system) / 1e4 / window).toFixed(2), idle_calls_per_s_by_command: byCommand };
  if (messages > 0) {
    const qs = names.map((name) => new Queue(name, { connection }));
    const opts = (delay) => ({ delay, removeOnComplete: true, removeOnFail: true });
    await Promise.all(qs.map((q, i) => q.addBulk(Array.from({ length: Math.ceil(2000 / queues) }, () => ({ name: 'w', data: payload, opts: opts(100) })))));
    const warmTotal = Math.ceil(2000 / queues) * queues;
    for (let t = 0; warm < warmTotal && t < 1200; t++) await new Promise((r) => setTimeout(r, 100));
    const lcpu0 = await info(redis, 'cpu');
    const lnode0 = process.cpuUsage();
    const first = Date.now() + 1000 + messages / 20;
    const perQueue = names.map(() => []);
    for (let i = 0; i < messages; i++) {
      const due = first + Math.floor((5000 * i) / messages);
      perQueue[i % queues].push({ name: 'o', data: { ...order(i), due }, opts: opts(due - Date.now()) });
    }
    await Promise.all(qs.map((q, i) => q.addBulk(perQueue[i])));
    for (let t = 0; measured < messages && t < 1200; t++) await new Promise((r) => setTimeout(r, 100));
    const lnode1 = process.cpuUsage(lnode0);
    const lcpu1 = await info(redis, 'cpu');
    lateness.sort((a, b) => a - b);
    const p = (q) => lateness[Math.min(lateness.length - 1, Math.floor(q * lateness.length))];
    Object.assign(result, { n: messages, complete: measured >= messages,
      // this one process also added the jobs: its CPU includes the adds
      node_cpu_us_per_message: +((lnode1.user + lnode1.system) / messages).toFixed(1),
      redis_cpu_us_per_message: +((redisCpu(lcpu1) - redisCpu(lcpu0)) / messages).toFixed(1),
      lateness_p50_ms: p(0.5), lateness_p99_ms: p(0.99), lateness_max_ms: lateness[lateness.length - 1] });
    await Promise.all(qs.map((q) => q.close()));
  }
  console.log(JSON.stringify(result));
  await Promise.all(workers.map((w) => w.close()));
}

async function memory(redis) {
  const queue = new Queue('bench', { connection });
  await queue.addBulk([{ name: 'w', data: payload, opts: { delay: 3600000 } }]);
  await redis.flushdb();
  const before = Number((await info(redis, 'memory')).used_memory);
  for (let from = 0; from < n; from += 10000) {
    const jobs = [];
    for (let i = from; i < Math.min(n, from + 10000); i++) jobs.push({ name: 'o', data: order(i), opts: { delay: 3600000 } });
    await queue.addBulk(jobs);
  }
  const after = Number((await info(redis, 'memory')).used_memory);
  console.log(JSON.stringify({ peer: 'bullmq', scenario: 'memory', n, payload_bytes: JSON.stringify(payload).length, bytes_per_message: +((after - before) / n).toFixed(1) }));
  await queue.close();
}

(async () => {
  const redis = new IORedis(connection);
  await redis.flushdb();
  if (scenario === 'burst') await burst(redis);
  else if (scenario === 'sustained') await sustained(redis);
  else if (scenario === 'footprint') await footprint(redis);
  else await memory(redis);
  await redis.flushdb();
  redis.disconnect();
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
