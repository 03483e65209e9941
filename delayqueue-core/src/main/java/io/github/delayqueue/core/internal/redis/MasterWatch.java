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

package io.github.delayqueue.core.internal.redis;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConnection;
import org.springframework.data.redis.connection.RedisServer;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Follows the master of a single server or Sentinel set through role changes, every half
 * second, on one {@link SupervisedLoop} per engine, with the Lettuce client (none on
 * Redis Cluster, whose client follows the slots itself).
 * <ul>
 * <li><b>A stale master.</b> After a failover where the old master lives on (a planned
 * {@code SENTINEL FAILOVER}, a stalled master that comes back), the Sentinels turn it
 * into a replica only some 10 s later, and until then the application's open connections
 * still write to it: writes that its resynchronization then throws away. When the server
 * behind the application's shared connection is not the one the Sentinels name (by run
 * id), or says it is a replica, the shared connection is reset (the next one finds the
 * master through the Sentinels) and the listeners {@link Listener#reconnect reconnect}
 * their own.</li>
 * <li><b>Another server.</b> When the server behind the shared connection changed (its
 * run id: a failover, a restart), writes of the seconds before may be lost with the old
 * one: the listeners {@link Listener#serverChanged send their recent acknowledgements
 * again}.</li>
 * </ul>
 */
public final class MasterWatch implements SupervisedLoop.Job {

	private static final Log logger = LogFactory.getLog(MasterWatch.class);

	private static final boolean LETTUCE = ClassUtils.isPresent(
			"org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory",
			MasterWatch.class.getClassLoader())
			&& ClassUtils.isPresent("io.lettuce.core.RedisClient", MasterWatch.class.getClassLoader());

	private static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

	/** The longest an INFO is waited for. */
	private static final Duration INFO_BOUND = Duration.ofMillis(300);

	/** How often the Sentinels are asked: a failover's start is seen within it. */
	private static final long SENTINEL_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/**
	 * How long reads stay held after the Sentinels last said the master is down or being
	 * failed over.
	 */
	private static final long HOLD_NANOS = TimeUnit.SECONDS.toNanos(5);

	/** What a listener does when the master changes. */
	public interface Listener {

		/**
		 * The server its connections reach is not the master any more: connect again.
		 */
		void reconnect();

		/**
		 * The master is another server than before (or the same one restarted): what was
		 * written to the old one in the last seconds may be lost.
		 */
		void serverChanged();

	}

	private final RedisConnectionFactory connectionFactory;

	private final ScriptRunner scripts;

	private final String masterName;

	private final List<Listener> listeners = new CopyOnWriteArrayList<>();

	private final SupervisedLoop loop;

	private RedisSentinelConnection sentinel;

	/** The run id of the server behind the shared connection at the last look. */
	private String lastRunId;

	/** The address of the master the Sentinels named at the last look. */
	private String lastNamed;

	private boolean started;

	/**
	 * Until when (System.nanoTime) the listeners read nothing: a failover is under way.
	 */
	private volatile long holdReadsUntil = System.nanoTime();

	private volatile boolean holding;

	/** When the next INFO is due (System.nanoTime). */
	private long nextInfo = System.nanoTime();

	/**
	 * @param scripts the engine's script runner (its connection factory is watched)
	 */
	public MasterWatch(ScriptRunner scripts) {
		this.scripts = scripts;
		this.connectionFactory = scripts.connectionFactory();
		this.masterName = sentinelMaster(this.connectionFactory);
		this.loop = new SupervisedLoop("master watch", "delayqueue-master-watch", this);
	}

	/**
	 * Whether the factory is a Lettuce client of a single server or a Sentinel set (a
	 * cluster's follows slots).
	 * @param connectionFactory the factory
	 * @return whether it is
	 */
	public static boolean isLettuceOnOneMaster(RedisConnectionFactory connectionFactory) {
		return LETTUCE && connectionFactory instanceof LettuceConnectionFactory lettuce && !lettuce.isClusterAware();
	}

	private static String sentinelMaster(RedisConnectionFactory connectionFactory) {
		if (LETTUCE && connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.isRedisSentinelAware()
				&& lettuce.getSentinelConfiguration() != null
				&& lettuce.getSentinelConfiguration().getMaster() != null) {
			return lettuce.getSentinelConfiguration().getMaster().getName();
		}
		return null;
	}

	/**
	 * Adds a listener.
	 * @param listener the listener
	 * @param start whether to start watching now (unless the factory is a cluster's)
	 */
	public synchronized void add(Listener listener, boolean start) {
		this.listeners.add(listener);
		if (start && !this.started && isLettuceOnOneMaster(this.connectionFactory)) {
			this.started = true;
			this.loop.start();
		}
	}

	/**
	 * Removes a listener.
	 * @param listener the listener
	 */
	public void remove(Listener listener) {
		this.listeners.remove(listener);
	}

	/**
	 * Stops watching.
	 */
	public synchronized void close() {
		if (this.started) {
			this.loop.stop(Duration.ofSeconds(5));
			this.started = false;
		}
		closeSentinel();
	}

	/**
	 * Whether listeners may read now. While the Sentinels say the master is down or being
	 * failed over, they read nothing: what they would read from the old master after the
	 * promotion of its replica (messages it moves to its stream meanwhile, entries the
	 * new master still has unread) would be handled again once the new master delivers
	 * it. Held for at most {@link #HOLD_NANOS} after the Sentinels last said so.
	 * @return whether reads may go on
	 */
	public boolean readsAllowed() {
		return !this.holding || System.nanoTime() - this.holdReadsUntil >= 0;
	}

	@Override
	public long runOnce() {
		RedisServer master = (this.masterName != null) ? namedMaster() : null;
		String address = (master != null) ? master.getHost() + ":" + master.getPort() : null;
		String flags = (master != null && master.getFlags() != null) ? master.getFlags() : "";
		boolean failingOver = flags.contains("failover_in_progress") || flags.contains("o_down")
				|| flags.contains("s_down");
		if (failingOver) {
			this.holdReadsUntil = System.nanoTime() + HOLD_NANOS;
			if (!this.holding) {
				this.holding = true;
				logger.info("The Sentinels say master '" + this.masterName + "' is down or being failed over (" + flags
						+ "): listeners read nothing until they name the master");
				// a blocking read under way would take what the old master moves to
				// its stream after its replica's promotion
				reconnectAll();
			}
		}
		else if (master != null) {
			this.holding = false;
		}
		// the Sentinels named another master since the last look: they switched at the
		// end of a failover, and the application's connections may reach the old one
		boolean switched = address != null && this.lastNamed != null && !address.equals(this.lastNamed);
		if (address != null) {
			this.lastNamed = address;
		}
		if (switched) {
			// at once: the old master may be stalled, and an INFO would wait for it
			logger.warn("The Sentinels name another master (" + address + "): connecting again, to it");
			this.holding = failingOver;
			reset();
			reconnectAll();
			return next();
		}
		if (System.nanoTime() - this.nextInfo < 0) {
			return next();
		}
		this.nextInfo = System.nanoTime() + PERIOD_NANOS;
		Properties info;
		try {
			// briefly: a stalled master must not keep the Sentinels unasked
			info = ScriptRunner.bounded(INFO_BOUND,
					() -> this.scripts.executeUnbounded((connection) -> connection.serverCommands().info()));
		}
		catch (RuntimeException ex) {
			logger.debug("No INFO from Redis: " + Failures.describe(ex));
			return next();
		}
		String runId = (info != null) ? info.getProperty("run_id") : null;
		String named = (master != null && master.getRunId() != null && !master.getRunId().isEmpty()) ? master.getRunId()
				: null;
		boolean replica = (info != null) && "slave".equals(info.getProperty("role"));
		if (runId != null && (replica || (named != null && !named.equals(runId)))) {
			logger.warn("The server behind this application's Redis connection (run id " + runId
					+ (replica ? ", now a replica" : "") + ") is not the master"
					+ ((address != null) ? " the Sentinels name (" + address + ")" : "")
					+ ": connecting again, to the master");
			reset();
			reconnectAll();
			return next();
		}
		if (runId != null && this.lastRunId != null && !runId.equals(this.lastRunId)) {
			logger.info("Redis's master is another server now (run id " + this.lastRunId + " before, " + runId
					+ " now): acknowledgements of the last seconds are sent to it again");
			this.listeners.forEach(Listener::serverChanged);
		}
		if (runId != null) {
			this.lastRunId = runId;
		}
		return next();
	}

	/**
	 * Has every listener connect again, on a thread of its own: closing a connection to a
	 * stalled server can take a while, and the Sentinels must be watched meanwhile.
	 */
	private void reconnectAll() {
		Thread thread = new Thread(() -> this.listeners.forEach(Listener::reconnect),
				"delayqueue-master-watch-reconnect");
		thread.setDaemon(true);
		thread.start();
	}

	private long next() {
		return (this.masterName != null) ? SENTINEL_PERIOD_NANOS : PERIOD_NANOS;
	}

	/** The master the Sentinels name, {@code null} when none answers. */
	private RedisServer namedMaster() {
		try {
			if (this.sentinel == null) {
				this.sentinel = this.connectionFactory.getSentinelConnection();
			}
			for (RedisServer master : this.sentinel.masters()) {
				if (this.masterName.equals(master.getName())) {
					return master;
				}
			}
			return null;
		}
		catch (RuntimeException ex) {
			// this Sentinel is away: another one next time
			logger.debug("Cannot ask the Sentinels for master '" + this.masterName + "': " + Failures.describe(ex));
			closeSentinel();
			return null;
		}
	}

	private void reset() {
		if (LETTUCE && this.connectionFactory instanceof LettuceConnectionFactory lettuce) {
			lettuce.resetConnection();
		}
	}

	private void closeSentinel() {
		RedisSentinelConnection current = this.sentinel;
		this.sentinel = null;
		if (current != null) {
			try {
				current.close();
			}
			catch (Exception ex) {
				// already broken
			}
		}
	}

	@Override
	public void stopped() {
		closeSentinel();
	}

}
