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
  else await memory(redis);
  await redis.flushdb();
  redis.disconnect();
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
