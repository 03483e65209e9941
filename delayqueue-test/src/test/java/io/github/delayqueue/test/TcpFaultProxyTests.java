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

package io.github.delayqueue.test;

import java.io.IOException;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link TcpFaultProxy} in front of a real Redis: each mode does to a client what it
 * says.
 */
class TcpFaultProxyTests {

	private static RedisServer redis;

	@BeforeAll
	static void start() {
		redis = RedisServer.start();
	}

	@AfterAll
	static void stop() {
		redis.close();
	}

	private static Object ping(TcpFaultProxy proxy, Duration timeout) throws IOException {
		return RespClient.call(proxy.host(), proxy.port(), null, timeout, "PING");
	}

	@Test
	void passesBlackholesDropsAndDelays() throws Exception {
		try (TcpFaultProxy proxy = TcpFaultProxy.start(redis.host(), redis.port())) {
			assertThat(ping(proxy, Duration.ofSeconds(2))).isEqualTo("PONG");

			proxy.blackhole();
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> ping(proxy, Duration.ofMillis(500)));
			proxy.pass();
			assertThat(ping(proxy, Duration.ofSeconds(2))).isEqualTo("PONG");

			proxy.drop();
			long started = System.nanoTime();
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> ping(proxy, Duration.ofSeconds(5)));
			assertThat(Duration.ofNanos(System.nanoTime() - started)).as("a reset, not a time-out")
				.isLessThan(Duration.ofSeconds(4));
			proxy.pass();
			assertThat(ping(proxy, Duration.ofSeconds(2))).isEqualTo("PONG");

			proxy.latency(Duration.ofMillis(300));
			started = System.nanoTime();
			assertThat(ping(proxy, Duration.ofSeconds(5))).isEqualTo("PONG");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		}
	}

}
