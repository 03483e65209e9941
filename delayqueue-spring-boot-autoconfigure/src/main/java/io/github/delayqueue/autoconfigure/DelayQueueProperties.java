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

package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties for delayqueue.
 */
@ConfigurationProperties("delayqueue")
public class DelayQueueProperties {

	/**
	 * Prefix of every Redis key the queues use.
	 */
	private String keyPrefix = "dq";

	/**
	 * Largest encoded payload accepted by a send.
	 */
	private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

	/**
	 * Largest total size of a message's headers.
	 */
	private DataSize maxHeadersSize = DataSize.ofKilobytes(16);

	private final Scheduler scheduler = new Scheduler();

	private final Retry retry = new Retry();

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		this.maxPayloadSize = maxPayloadSize;
	}

	public DataSize getMaxHeadersSize() {
		return this.maxHeadersSize;
	}

	public void setMaxHeadersSize(DataSize maxHeadersSize) {
		this.maxHeadersSize = maxHeadersSize;
	}

	public Scheduler getScheduler() {
		return this.scheduler;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public static class Scheduler {

		/**
		 * Longest time a scheduler sleeps without checking Redis. Bounds the lateness of
		 * a message only when its wake-up notification is lost.
		 */
		private Duration maxIdle = Duration.ofSeconds(2);

		public Duration getMaxIdle() {
			return this.maxIdle;
		}

		public void setMaxIdle(Duration maxIdle) {
			this.maxIdle = maxIdle;
		}

	}

	public static class Retry {

		/**
		 * Most attempts per message and group, the first included.
		 */
		private int maxAttempts = 5;

		/**
		 * Delay before the first retry.
		 */
		private Duration initialBackoff = Duration.ofSeconds(1);

		/**
		 * Factor by which the delay grows with each retry.
		 */
		private double multiplier = 2.0;

		/**
		 * Largest delay between two attempts.
		 */
		private Duration maxBackoff = Duration.ofMinutes(10);

		/**
		 * Random spread of each delay, from 0 to 1 (0.2 is plus or minus 20%).
		 */
		private double jitter = 0.2;

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Duration getInitialBackoff() {
			return this.initialBackoff;
		}

		public void setInitialBackoff(Duration initialBackoff) {
			this.initialBackoff = initialBackoff;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

		public double getJitter() {
			return this.jitter;
		}

		public void setJitter(double jitter) {
			this.jitter = jitter;
		}

	}

}
