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

package io.github.delayqueue.core.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.TcpFaultProxy;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The ready counts after planned failovers in which the old master resynchronizes in part
 * with the new one (PSYNC): it keeps its group's read counter, which its replication then
 * never moves on (Redis 7.0 replicates a read as an {@code XCLAIM} that carries the
 * last-delivered id, not the counter). Promoted again, it reports a lag of everything
 * read meanwhile, with nothing unread. The application reaches the master through one
 * endpoint (a TCP proxy), moved to the new master at each failover, as a managed
 * service's endpoint is.
 */
@Tag("faults")
class ReadyCountFailoverTests {

	@AutoClose
	private final Resources resources = new Resources();

	private <T extends AutoCloseable> T track(T resource) {
		return this.resources.track(resource);
	}

	@Test
	void readyCountsStayTrueAcrossFailoversAndCountARealBacklog() throws Exception {
		RedisServer a = track(RedisServer.builder().config("repl-diskless-sync-delay", "0").start());
		RedisServer b = track(RedisServer.builder()
			.config("replicaof", a.host(), String.valueOf(a.port()))
			.config("repl-diskless-sync-delay", "0")
			.start());
		awaitReplica(b, a);
		TcpFaultProxy endpoint = track(TcpFaultProxy.start(a.host(), a.port()));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(endpoint.host(), endpoint.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		this.resources.track(factory::destroy);
		DelayQueueEngine engine = track(DelayQueueEngine.builder(factory).build());
		Set<String> handled = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = engine
			.listenerContainer("counted", "g", String.class, (payload, context) -> handled.add(payload))
			.build();
		container.start();
		this.resources.track(container::stop);

		RedisServer master = a;
		RedisServer replica = b;
		int sent = 0;
		for (int round = 0; round <= 2; round++) {
			sent += sendNow(engine, round, 200);
			int expected = sent;
			await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == expected);
			RedisServer current = master;
			await().atMost(Duration.ofSeconds(30))
				.until(() -> ((List<?>) current.execute("XPENDING", "dq:{counted}:stream", "g")).get(0).equals(0L));
			if (round == 2) {
				// a size limit counts the ready messages too: a wrong counter would
				// refuse
				// this send as over the limit
				engine.admin().limitSize("counted", 100);
				assertThat(engine.template().send("counted", "limited", Duration.ofHours(1))).isNotNull();
				engine.admin().removeSizeLimit("counted");
			}
			QueueStats stats = engine.admin().stats("counted");
			System.out.println("After " + round + " failover(s), all handled: " + stats + "; XINFO GROUPS "
					+ master.execute("XINFO", "GROUPS", "dq:{counted}:stream"));
			assertThat(stats.ready()).as("ready after %d failover(s)", round).isZero();
			assertThat(stats.groups()).singleElement().satisfies((group) -> assertThat(group.lag()).isZero());
			if (round < 2) {
				// a planned failover with nothing written in between: the old master
				// resynchronizes in part
				endpoint.blackhole();
				awaitReplica(replica, master);
				replica.execute("REPLICAOF", "NO", "ONE");
				master.execute("REPLICAOF", replica.host(), String.valueOf(replica.port()));
				awaitReplica(master, replica);
				assertThat(master.log()).contains("Successful partial resynchronization");
				endpoint.retarget(replica.host(), replica.port());
				endpoint.drop();
				endpoint.pass();
				// the shared connection may be cut mid-write by the drop ("Connection
				// reset", a send that fails visibly): what is tested is the count after
				// the client is back, so wait for it
				await().atMost(Duration.ofSeconds(30))
					.ignoreExceptions()
					.until(() -> engine.admin().stats("counted") != null);
				RedisServer promoted = replica;
				replica = master;
				master = promoted;
			}
		}
		// a real backlog is counted as such: exactly up to what is counted, then Redis's
		// counter, set right
		engine.admin().pause("counted", "g");
		for (int backlog : new int[] { 20, 500 }) {
			sent += sendNow(engine, 100 + backlog, backlog);
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				QueueStats stats = engine.admin().stats("counted");
				// a read that was under way when the pause came holds some
				assertThat(stats.ready() + stats.inFlight()).isEqualTo(backlog);
			});
			engine.admin().resume("counted", "g");
			int expected = sent;
			await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == expected);
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(engine.admin().stats("counted").ready()).isZero());
			engine.admin().pause("counted", "g");
		}
	}

	private static void awaitReplica(RedisServer replica, RedisServer master) {
		await("in sync").atMost(Duration.ofSeconds(30))
			.until(() -> "up".equals(replica.info("master_link_status"))
					&& String.valueOf(master.port()).equals(replica.info("master_port"))
					&& master.info("master_repl_offset").equals(replica.info("slave_repl_offset")));
	}

	private static int sendNow(DelayQueueEngine engine, int round, int count) {
		List<DelayMessage<String>> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(DelayMessage.builder(round + "-" + i).queue("counted").build());
		}
		engine.template().sendAll(messages);
		return count;
	}

}
