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

package io.github.delayqueue.core.internal.scheduling;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.runtime.LoopRunner;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.awaitility.Awaitility.await;

/**
 * {@link QueueScheduler}'s sleeps and wake-ups, against a server: schedule entries with
 * no envelope, which a promote call moves to the stream as unreadable entries, show when
 * it ran.
 */
@RedisTest
class QueueSchedulerTests {

	private final RedisServer redis;

	private final LoopRunner loops = new LoopRunner();

	private final Schedulers schedulers;

	QueueSchedulerTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		// the sweep that would catch a lost wake-up comes long after the test's waits
		this.schedulers = new Schedulers(new ScriptRunner(connectionFactory), connectionFactory, 100,
				Duration.ofSeconds(60), (queue) -> {
				}, (queue) -> false, 0, this.loops);
	}

	@AfterEach
	void close() {
		this.schedulers.close();
		this.loops.close();
	}

	private long redisMillis() {
		List<?> time = (List<?>) this.redis.execute("TIME");
		return Long.parseLong(String.valueOf(time.get(0))) * 1000 + Long.parseLong(String.valueOf(time.get(1))) / 1000;
	}

	private void schedule(QueueKeys keys, String id, long dueMillis) {
		this.redis.execute("ZADD", keys.delayed(), Long.toString(dueMillis), id);
	}

	private void awaitMoved(QueueKeys keys, long count, Duration within) {
		await().atMost(within).until(() -> (Long) this.redis.execute("XLEN", keys.stream()) == count);
	}

	@Test
	void aDueTimeToldBeforeAPromoteCallThatReadsNothingThereDoesNotSwallowTheWakeUpsAfterIt() throws Exception {
		QueueKeys keys = new QueueKeys("dq", "told-before-a-call");
		schedule(keys, "first", redisMillis() - 1);
		this.schedulers.join(keys, "g");
		awaitMoved(keys, 1, Duration.ofSeconds(5));
		// told of a due time whose entry another node has promoted already
		long toldDue = redisMillis() + 1000;
		this.schedulers.wake(keys, toldDue);
		// a promote call before it, asked for at once (a group joins): the schedule is
		// empty
		schedule(keys, "second", redisMillis() - 1);
		this.schedulers.join(keys, "h");
		awaitMoved(keys, 2, Duration.ofSeconds(5));
		while (redisMillis() < toldDue + 200) {
			Thread.sleep(50);
		}
		// a retry scheduled on this node: due in 200 ms, moved then, not at the sweep
		long due = redisMillis() + 200;
		schedule(keys, "third", due);
		this.schedulers.wake(keys, due);
		awaitMoved(keys, 3, Duration.ofSeconds(5));
	}

}
