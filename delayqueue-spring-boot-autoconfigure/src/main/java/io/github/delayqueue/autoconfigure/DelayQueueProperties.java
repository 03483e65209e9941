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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties for delayqueue. Unknown properties under {@code delayqueue.}
 * fail the start-up, so that a misspelt setting is never silently ignored.
 */
@ConfigurationProperties(prefix = "delayqueue", ignoreUnknownFields = false)
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

	/**
	 * Longest one operation waits for Redis, whatever spring.data.redis.timeout says: a
	 * send (per batch), cancel, reschedule, admin call, or a command of the listeners and
	 * schedulers. Past it the call fails and may or may not have taken effect.
	 */
	private Duration operationTimeout = Duration.ofSeconds(2);

	/**
	 * Most messages of one queue that one Redis script call of sendAll carries.
	 */
	private int sendBatchSize = 500;

	/**
	 * Which Jackson writes and reads JSON payloads: auto (the application's Jackson 3
	 * JsonMapper; its Jackson 2 ObjectMapper when that is the only mapper it defines;
	 * else a default Jackson 3 mapper), jackson (Jackson 3) or jackson2 (the
	 * application's Jackson 2 ObjectMapper, e.g. of spring-boot-jackson2). Ignored when
	 * the application defines its own MessageCodec bean.
	 */
	private JsonMapperChoice jsonMapper = JsonMapperChoice.AUTO;

	private final Scheduler scheduler = new Scheduler();

	private final ListenerProperties.Retry retry = new ListenerProperties.Retry();

	/**
	 * Settings of every listener; delayqueue.queues.&lt;queue&gt;.* overrides them for
	 * one queue.
	 */
	@NestedConfigurationProperty
	private final ListenerProperties listener = new ListenerProperties();

	private final ListenerProperties.DeadLetter deadLetter = new ListenerProperties.DeadLetter();

	private final Admin admin = new Admin();

	private final Metrics metrics = new Metrics();

	private final ServerCheck serverCheck = new ServerCheck();

	private final DurableSend durableSend = new DurableSend();

	private final Send send = new Send();

	private final Outbox outbox = new Outbox();

	private final Observation observation = new Observation();

	private final Modulith modulith = new Modulith();

	private final Migration migration = new Migration();

	private final Cluster cluster = new Cluster();

	private final Reconnect reconnect = new Reconnect();

	@NestedConfigurationProperty
	private final DashboardProperties dashboard = new DashboardProperties();

	/**
	 * Per-queue listener settings, by queue name: the keys of delayqueue.listener, over
	 * those. A @DelayListener attribute wins over these.
	 */
	private final Map<String, ListenerProperties> queues = new LinkedHashMap<>();

	/**
	 * Recurring messages, by schedule name: registered in Redis at start-up.
	 */
	private final Map<String, ScheduleProperties> schedules = new LinkedHashMap<>();

	public Map<String, ScheduleProperties> getSchedules() {
		return this.schedules;
	}

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

	public Duration getOperationTimeout() {
		return this.operationTimeout;
	}

	public void setOperationTimeout(Duration operationTimeout) {
		this.operationTimeout = operationTimeout;
	}

	public int getSendBatchSize() {
		return this.sendBatchSize;
	}

	public void setSendBatchSize(int sendBatchSize) {
		this.sendBatchSize = sendBatchSize;
	}

	public JsonMapperChoice getJsonMapper() {
		return this.jsonMapper;
	}

	public void setJsonMapper(JsonMapperChoice jsonMapper) {
		this.jsonMapper = jsonMapper;
	}

	public Scheduler getScheduler() {
		return this.scheduler;
	}

	/**
	 * Which Jackson the payload codec uses.
	 */
	public enum JsonMapperChoice {

		/**
		 * The application's Jackson 3 mapper; its Jackson 2 mapper when that is the only
		 * one it defines; else a default Jackson 3 mapper.
		 */
		AUTO,

		/**
		 * Jackson 3: the application's JsonMapper, or a default one.
		 */
		JACKSON,

		/**
		 * Jackson 2: the application's ObjectMapper, or a default one.
		 */
		JACKSON2

	}

	/**
	 * Former place of the listeners' retry settings (delayqueue.retry.*), now
	 * delayqueue.listener.retry.*; deprecated in the metadata.
	 * @return the retry settings
	 */
	@Deprecated(since = "0.1.0")
	public ListenerProperties.Retry getRetry() {
		return this.retry;
	}

	public ListenerProperties getListener() {
		return this.listener;
	}

	/**
	 * Former place of the dead-letter retention (delayqueue.dead-letter.retention), now
	 * delayqueue.listener.dead-letter-retention; deprecated in the metadata.
	 * @return the dead-letter settings
	 */
	@Deprecated(since = "0.1.0")
	public ListenerProperties.DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	public Admin getAdmin() {
		return this.admin;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public ServerCheck getServerCheck() {
		return this.serverCheck;
	}

	public DurableSend getDurableSend() {
		return this.durableSend;
	}

	public Outbox getOutbox() {
		return this.outbox;
	}

	public Send getSend() {
		return this.send;
	}

	public Observation getObservation() {
		return this.observation;
	}

	public Migration getMigration() {
		return this.migration;
	}

	public Modulith getModulith() {
		return this.modulith;
	}

	public DashboardProperties getDashboard() {
		return this.dashboard;
	}

	public Cluster getCluster() {
		return this.cluster;
	}

	public Reconnect getReconnect() {
		return this.reconnect;
	}

	public static class Reconnect {

		/**
		 * Whether to make the application's Lettuce client reconnect soon after Redis
		 * comes back: 100 ms after the connection was lost, doubling to max-delay
		 * (Lettuce's own waits grow to 30 s). A ClientResourcesBuilderCustomizer of the
		 * application runs after and wins.
		 */
		private boolean enabled = true;

		/**
		 * The longest wait between two reconnect attempts: after an outage, the client is
		 * back at most this long after Redis answers again.
		 */
		private Duration maxDelay = Duration.ofSeconds(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

	}

	public static class Cluster {

		/**
		 * Whether to set up the application's Lettuce Redis Cluster client for fast
		 * failover: topology refreshed periodically (every second unless
		 * spring.data.redis.lettuce.cluster.refresh.period says otherwise) and commands
		 * for a node that is down rejected at once instead of waiting out the command
		 * timeout. A LettuceClientOptionsBuilderCustomizer of the application runs after
		 * and wins.
		 */
		private boolean fastFailover = true;

		public boolean isFastFailover() {
			return this.fastFailover;
		}

		public void setFastFailover(boolean fastFailover) {
			this.fastFailover = fastFailover;
		}

	}

	public static class Observation {

		/**
		 * Whether sends and message processing are recorded as Micrometer Observations
		 * (delayqueue.send, delayqueue.process), named and keyed per the OpenTelemetry
		 * messaging conventions, with the trace context carried in message headers. Needs
		 * an ObservationRegistry bean (spring-boot-starter-actuator).
		 */
		private boolean enabled;

		/**
		 * Whether the default conventions also add the key names of releases before 0.2
		 * (delayqueue.queue, delayqueue.group, delayqueue.attempt, delayqueue.outcome,
		 * delayqueue.message.id) beside the messaging.* ones. To be removed.
		 */
		private boolean legacyKeyValues = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isLegacyKeyValues() {
			return this.legacyKeyValues;
		}

		public void setLegacyKeyValues(boolean legacyKeyValues) {
			this.legacyKeyValues = legacyKeyValues;
		}

	}

	public static class Modulith {

		/**
		 * Whether Spring Modulith events marked @Externalized are externalized to
		 * delayqueue (with delayqueue-spring-modulith on the class path): the routing
		 * target names the queue, its key the message key.
		 */
		private boolean enabled = true;

		private final Resubmit resubmit = new Resubmit();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Resubmit getResubmit() {
			return this.resubmit;
		}

		public static class Resubmit {

			/**
			 * Whether event publications left incomplete (a send to Redis that failed or
			 * timed out, or one a JVM lost track of) are resubmitted while the
			 * application runs, rather than only at a restart.
			 */
			private boolean enabled = true;

			/**
			 * How often the registry is searched for publications to resubmit: failed
			 * ones at once, stale ones after stale-after.
			 */
			private Duration interval = Duration.ofSeconds(10);

			/**
			 * How long a publication may stay incomplete without having failed before it
			 * is resubmitted (since it was published or last resubmitted).
			 */
			private Duration staleAfter = Duration.ofMinutes(1);

			public boolean isEnabled() {
				return this.enabled;
			}

			public void setEnabled(boolean enabled) {
				this.enabled = enabled;
			}

			public Duration getInterval() {
				return this.interval;
			}

			public void setInterval(Duration interval) {
				this.interval = interval;
			}

			public Duration getStaleAfter() {
				return this.staleAfter;
			}

			public void setStaleAfter(Duration staleAfter) {
				this.staleAfter = staleAfter;
			}

		}

	}

	public static class Migration {

		private final Redisson redisson = new Redisson();

		public Redisson getRedisson() {
			return this.redisson;
		}

		/**
		 * Moving Redisson delayed queues in at start-up (see RedissonMigration).
		 */
		public static class Redisson {

			/**
			 * Redisson delayed queues (the names of their destination queues) whose
			 * messages are moved, at start-up, into the delayqueue queues of the same
			 * names. A start-up fails naming what could not be moved; a start-up again
			 * moves what is left.
			 */
			private List<String> queues = new ArrayList<>();

			/**
			 * How the payloads Redisson stored become message payloads: string
			 * (StringCodec), json (JsonJacksonCodec, its @class properties removed) or
			 * bytes (as they are). Other codecs: RedissonMigration in code.
			 */
			private String payload = "string";

			/**
			 * How long the moves of one start-up may take at most, per queue; what is
			 * left moves at the next start-up.
			 */
			private Duration timeLimit = Duration.ofMinutes(5);

			public List<String> getQueues() {
				return this.queues;
			}

			public void setQueues(List<String> queues) {
				this.queues = queues;
			}

			public String getPayload() {
				return this.payload;
			}

			public void setPayload(String payload) {
				this.payload = payload;
			}

			public Duration getTimeLimit() {
				return this.timeLimit;
			}

			public void setTimeLimit(Duration timeLimit) {
				this.timeLimit = timeLimit;
			}

		}

	}

	public static class Send {

		/**
		 * Whether send and sendAll called inside a Spring transaction wait for its
		 * commit, and drop the messages on rollback (their results have status DEFERRED).
		 * Per call: DelayQueueTemplate.sendAfterCommit.
		 */
		private boolean afterCommit;

		public boolean isAfterCommit() {
			return this.afterCommit;
		}

		public void setAfterCommit(boolean afterCommit) {
			this.afterCommit = afterCommit;
		}

	}

	public static class Outbox {

		/**
		 * Whether sends inside a transaction of the application's DataSource go through a
		 * transactional outbox table (written with the transaction, moved to Redis by a
		 * relay on every instance), so that no crash between the commit and the send
		 * loses a message. Needs spring-jdbc and one DataSource. Per call:
		 * DelayQueueTemplate.sendWithOutbox.
		 */
		private boolean enabled;

		/**
		 * The outbox table.
		 */
		private String table = "delayqueue_outbox";

		/**
		 * Whether to create the outbox table at start-up when it is missing, with the DDL
		 * shipped for the database (PostgreSQL, MariaDB/MySQL, H2). Off: apply it with
		 * the migration tool.
		 */
		private boolean initializeSchema;

		/**
		 * How long the relay waits between two looks at an empty outbox; a commit that
		 * wrote to it wakes the relay of its instance at once.
		 */
		private Duration pollInterval = Duration.ofMillis(500);

		/**
		 * The most rows the relay moves per database transaction.
		 */
		private int batchSize = 500;

		/**
		 * How many relay workers move the rows on each instance (1 to 16). Each takes its
		 * share of the message ids, so one id's rows keep their order.
		 */
		private int relayWorkers = 2;

		public int getRelayWorkers() {
			return this.relayWorkers;
		}

		public void setRelayWorkers(int relayWorkers) {
			this.relayWorkers = relayWorkers;
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getTable() {
			return this.table;
		}

		public void setTable(String table) {
			this.table = table;
		}

		public boolean isInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(boolean initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

	}

	public static class DurableSend {

		/**
		 * Number of replicas every send waits for (WAIT). 0 with local-aof false means
		 * sends do not wait.
		 */
		private int replicas;

		/**
		 * Whether every send also waits for the master's AOF fsync (WAITAOF, Redis 7.2+).
		 */
		private boolean localAof;

		/**
		 * How long a send waits for the confirmations before it reports them missing.
		 */
		private Duration timeout = Duration.ofSeconds(1);

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

		public boolean isLocalAof() {
			return this.localAof;
		}

		public void setLocalAof(boolean localAof) {
			this.localAof = localAof;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	public static class ServerCheck {

		/**
		 * Whether to check the Redis server's settings (eviction policy, AOF) at start-up
		 * and log what weakens the guarantees.
		 */
		private boolean enabled = true;

		/**
		 * Whether a maxmemory-policy other than noeviction fails the start-up instead of
		 * logging a warning.
		 */
		private boolean failOnEviction;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isFailOnEviction() {
			return this.failOnEviction;
		}

		public void setFailOnEviction(boolean failOnEviction) {
			this.failOnEviction = failOnEviction;
		}

	}

	public Map<String, ListenerProperties> getQueues() {
		return this.queues;
	}

	public static class Admin {

		/**
		 * Whether the delayqueue actuator endpoint offers write operations; replaced by
		 * management.endpoint.delayqueue.access=unrestricted.
		 */
		private boolean enabled;

		@Deprecated(since = "0.1.0")
		@DeprecatedConfigurationProperty(replacement = "management.endpoint.delayqueue.access", since = "0.1.0")
		public boolean isEnabled() {
			return this.enabled;
		}

		@Deprecated(since = "0.1.0")
		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	public static class Metrics {

		/**
		 * How long the per-queue gauges reuse one reading of a queue's counts before
		 * asking Redis again.
		 */
		private Duration statsRefresh = Duration.ofSeconds(5);

		public Duration getStatsRefresh() {
			return this.statsRefresh;
		}

		public void setStatsRefresh(Duration statsRefresh) {
			this.statsRefresh = statsRefresh;
		}

	}

	public static class Scheduler {

		/**
		 * Longest time a scheduler sleeps without checking Redis: the slow sweep of an
		 * idle queue. Bounds the lateness of a message only when its wake-up notification
		 * is lost while the subscription stays up.
		 */
		private Duration maxIdle = Duration.ofSeconds(30);

		/**
		 * Most due messages one promote call moves per source (the queue, each group's
		 * retries).
		 */
		private int batchSize = 500;

		/**
		 * How far ahead a message must be due to be kept in the compact far tier (about
		 * half the Redis memory of the schedule); 0 keeps every message in the schedule.
		 * Zero, or from 1 second to 1 day.
		 */
		private Duration compactAfter = Duration.ofMinutes(2);

		/**
		 * From which of its messages a time slot of the far tier is kept compact: a
		 * slot's stream costs about 4.7 KB however few entries it holds, so the first
		 * messages of a slot stay in the schedule. From 1 to 100000.
		 */
		private int compactMinimum = 64;

		public Duration getCompactAfter() {
			return this.compactAfter;
		}

		public int getCompactMinimum() {
			return this.compactMinimum;
		}

		public void setCompactMinimum(int compactMinimum) {
			this.compactMinimum = compactMinimum;
		}

		public void setCompactAfter(Duration compactAfter) {
			this.compactAfter = compactAfter;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getMaxIdle() {
			return this.maxIdle;
		}

		public void setMaxIdle(Duration maxIdle) {
			this.maxIdle = maxIdle;
		}

	}

}
