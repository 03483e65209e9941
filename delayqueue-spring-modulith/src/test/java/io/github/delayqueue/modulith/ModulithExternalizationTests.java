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

package io.github.delayqueue.modulith;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.delayqueue.modulith.app.DuplicateSends;
import io.github.delayqueue.modulith.app.OrderChecks;
import io.github.delayqueue.modulith.app.OrderPlaced;
import io.github.delayqueue.modulith.app.Orders;
import io.github.delayqueue.modulith.app.OrdersApplication;
import io.github.delayqueue.test.DatabaseServer;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Spring Modulith events externalized to delayqueue, with Modulith's JDBC event
 * publication registry on a real PostgreSQL and a real Redis: an event published in a
 * committed transaction is delivered after its delay, never before; one published in a
 * rolled-back transaction never is; and one whose JVM was killed after the commit and
 * before the externalization reached Redis is delivered after a restart, through the
 * registry's resubmission of incomplete publications.
 */
class ModulithExternalizationTests {

	private static DatabaseServer database;

	private static RedisServer redis;

	@BeforeAll
	static void start() {
		Assumptions.assumeTrue(DatabaseServer.isAvailable(DatabaseServer.Kind.POSTGRESQL), "no PostgreSQL here");
		database = DatabaseServer.start(DatabaseServer.Kind.POSTGRESQL);
		// as operators run it: a restart keeps what was acknowledged
		redis = RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS).start();
	}

	@AfterAll
	static void stop() {
		if (redis != null) {
			redis.close();
		}
		if (database != null) {
			database.close();
		}
	}

	@BeforeEach
	void clear() {
		OrderChecks.RECEIVED.clear();
		OrderChecks.PAYMENTS.clear();
	}

	@Test
	void anEventOfACommittedTransactionIsDeliveredAfterItsDelayAndNeverBefore() {
		try (ConfigurableApplicationContext context = application(false)) {
			long committedAt = System.currentTimeMillis();
			context.getBean(Orders.class).place("o-commit", false);
			await().atMost(Duration.ofSeconds(15)).until(() -> received("o-commit").size() == 1);
			OrderChecks.Check check = received("o-commit").get(0);
			assertThat(check.dueAt()).isGreaterThanOrEqualTo(committedAt + OrderPlaced.CHECK_AFTER.toMillis());
			assertThat(check.receivedAt()).isGreaterThanOrEqualTo(check.dueAt());
			// the registry marks the publication completed once Redis holds the message
			await().atMost(Duration.ofSeconds(10)).until(() -> incomplete(context) == 0);
			assertThat(publications(context, "o-commit")).isEqualTo(1);
		}
	}

	@Test
	void anEventOfARolledBackTransactionIsNeverDelivered() throws InterruptedException {
		try (ConfigurableApplicationContext context = application(false)) {
			assertThatIllegalStateException().isThrownBy(() -> context.getBean(Orders.class).place("o-rollback", true));
			context.getBean(Orders.class).place("o-after", false);
			// the next order's event, due after the rolled-back one would have been
			await().atMost(Duration.ofSeconds(15)).until(() -> received("o-after").size() == 1);
			Thread.sleep(500);
			assertThat(received("o-rollback")).isEmpty();
			assertThat(publications(context, "o-rollback")).isZero();
			assertThat(new JdbcTemplate(context.getBean(javax.sql.DataSource.class))
				.queryForObject("SELECT COUNT(*) FROM orders WHERE id = 'o-rollback'", Integer.class)).isZero();
		}
	}

	@Test
	void aJvmKilledAfterTheCommitAndBeforeTheExternalizationDeliversTheEventAfterARestart() throws Exception {
		Process child = childApplication();
		try {
			BlockingQueue<String> lines = lines(child);
			awaitLine(lines, "READY", child);
			// Redis away: the externalization after the commit cannot reach it
			redis.stop();
			try (Writer in = new java.io.OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
				in.write("place o-killed\n");
				in.flush();
				awaitLine(lines, "COMMITTED o-killed", child);
				child.destroyForcibly();
				assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
			}
		}
		finally {
			child.destroyForcibly();
			if (!redis.isRunning()) {
				redis.startAgain();
			}
		}
		assertThat(received("o-killed")).isEmpty();
		// committed, and not externalized: the registry holds it incomplete
		try (java.sql.Connection connection = java.sql.DriverManager.getConnection(database.jdbcUrl(), database.user(),
				database.password());
				java.sql.PreparedStatement query = connection.prepareStatement("SELECT COUNT(*) FROM event_publication "
						+ "WHERE completion_date IS NULL AND serialized_event LIKE '%o-killed%'");
				java.sql.ResultSet result = query.executeQuery()) {
			assertThat(result.next()).isTrue();
			assertThat(result.getInt(1)).isEqualTo(1);
		}
		try (ConfigurableApplicationContext context = application(true)) {
			assertThat(publications(context, "o-killed")).isEqualTo(1);
			await().atMost(Duration.ofSeconds(30)).until(() -> !received("o-killed").isEmpty());
			await().atMost(Duration.ofSeconds(10)).until(() -> incomplete(context) == 0);
		}
	}

	@Test
	void publicationsARedisPauseLeftFailedAreResubmittedWhileTheApplicationRuns() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrdersApplication.class)
			.properties(properties(false))
			.properties("delayqueue.modulith.resubmit.interval=500ms", "delayqueue.operation-timeout=500ms")
			.run()) {
			placeAround(context, "p", () -> {
				redis.pause();
				return redis::resume;
			});
			PublicationResubmitter resubmitter = context.getBean(PublicationResubmitter.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> incomplete(context) == 0);
			await().atMost(Duration.ofSeconds(10)).until(() -> distinctReceived("p") == 100);
			System.out.println("Redis paused: " + resubmitter.failedResubmitted() + " failed publications resubmitted, "
					+ (OrderChecks.RECEIVED.stream().filter((check) -> check.orderId().startsWith("p-")).count() - 100)
					+ " events delivered twice");
			assertThat(resubmitter.failedResubmitted()).as("failed publications resubmitted").isPositive();
		}
	}

	@Test
	void atTheDefaultsAMessageIdKeepsASendThatTimedOutButWasAppliedFromBeingDeliveredTwice() throws Exception {
		// every delayqueue.modulith.* setting and the operation timeout (2 s) at their
		// defaults
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrdersApplication.class)
			.properties(properties(false))
			.run()) {
			long duplicatesBefore = DuplicateSends.COUNT.get();
			placeAround(context, "m", (id) -> context.getBean(Orders.class).placeWithPaymentCheck(id), () -> {
				redis.pause();
				return redis::resume;
			}, 3500);
			PublicationResubmitter resubmitter = context.getBean(PublicationResubmitter.class);
			await().atMost(Duration.ofSeconds(40)).until(() -> incomplete(context) == 0);
			io.github.delayqueue.core.DelayQueueAdmin admin = context
				.getBean(io.github.delayqueue.core.DelayQueueAdmin.class);
			await().atMost(Duration.ofSeconds(60)).until(() -> {
				io.github.delayqueue.core.QueueStats stats = admin.stats("payment-checks");
				return stats.scheduled() == 0 && stats.ready() == 0 && stats.inFlight() == 0
						&& payments("m").size() >= 100;
			});
			long duplicates = DuplicateSends.COUNT.get() - duplicatesBefore;
			System.out.println("Redis paused 3.5 s, defaults: " + resubmitter.failedResubmitted()
					+ " failed publications resubmitted, " + duplicates + " resubmitted sends found their message "
					+ "scheduled, " + (payments("m").size() - 100) + " events delivered twice");
			// the timed-out sends had been applied: their resubmissions met their ids
			assertThat(payments("m")).as("payment checks, none twice").hasSize(100);
			assertThat(resubmitter.failedResubmitted()).as("failed publications resubmitted").isPositive();
			assertThat(duplicates).as("resubmitted sends whose message was still scheduled").isPositive();
		}
	}

	@Test
	void atTheDefaultsAPublicationWhoseEventCannotBeReadHoldsNoOtherResubmissionBack() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrdersApplication.class)
			.properties(properties(false))
			.run()) {
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
			// a send that times out (2 s) while Redis is paused: its publication fails
			redis.pause();
			try {
				context.getBean(Orders.class).place("u-1", false);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM event_publication WHERE status = 'FAILED' "
							+ "AND serialized_event LIKE '%u-1%'", Integer.class) == 1);
			}
			finally {
				redis.resume();
			}
			try {
				// an older failed publication of the same listener whose event no longer
				// reads (its class changed since)
				jdbc.update("INSERT INTO event_publication (id, listener_id, event_type, serialized_event, "
						+ "publication_date, status, completion_attempts, last_resubmission_date) "
						+ "SELECT gen_random_uuid(), listener_id, event_type, '{\"orderId\":{\"changed\":1}}', "
						+ "publication_date - INTERVAL '1 second', 'FAILED', 1, NULL FROM event_publication "
						+ "WHERE serialized_event LIKE '%u-1%'");
				// the next look (10 s) resubmits u-1 all the same
				await().atMost(Duration.ofSeconds(30))
					.until(() -> !received("u-1").isEmpty() && jdbc.queryForObject(
							"SELECT COUNT(*) FROM event_publication WHERE completion_date IS NULL AND serialized_event LIKE ?",
							Integer.class, "%u-1%") == 0);
				assertThat(jdbc.queryForObject(
						"SELECT COUNT(*) FROM event_publication WHERE completion_date IS NULL AND serialized_event LIKE ?",
						Integer.class, "%changed%"))
					.as("the unreadable publication, left alone")
					.isEqualTo(1);
			}
			finally {
				jdbc.update("DELETE FROM event_publication WHERE serialized_event LIKE '%changed%'");
			}
		}
	}

	@Test
	void publicationsARedisRestartLeftIncompleteAreResubmittedWhileTheApplicationRuns() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrdersApplication.class)
			.properties(properties(false))
			.properties("delayqueue.modulith.resubmit.interval=500ms", "delayqueue.modulith.resubmit.stale-after=3s")
			.run()) {
			long started = System.currentTimeMillis();
			placeAround(context, "k", () -> {
				redis.kill();
				return redis::restart;
			});
			await().atMost(Duration.ofSeconds(30)).until(() -> incomplete(context) == 0);
			await().atMost(Duration.ofSeconds(10)).until(() -> distinctReceived("k") == 100);
			System.out.println("Redis killed: every event delivered " + (System.currentTimeMillis() - started)
					+ " ms after the first commit, without a restart");
		}
	}

	/**
	 * Places 100 orders 30 ms apart, with an outage of Redis for 3 s from the 30th: the
	 * outage starts, and returns how it ends.
	 */
	private static void placeAround(ConfigurableApplicationContext context, String prefix,
			java.util.function.Supplier<Runnable> outage) throws InterruptedException {
		Orders orders = context.getBean(Orders.class);
		placeAround(context, prefix, (id) -> orders.place(id, false), outage, 3000);
	}

	private static void placeAround(ConfigurableApplicationContext context, String prefix,
			java.util.function.Consumer<String> place, java.util.function.Supplier<Runnable> outage, long outageMillis)
			throws InterruptedException {
		Runnable end = null;
		long outageStarted = 0;
		for (int i = 0; i < 100; i++) {
			if (i == 30) {
				end = outage.get();
				outageStarted = System.nanoTime();
			}
			if (end != null && System.nanoTime() - outageStarted > TimeUnit.MILLISECONDS.toNanos(outageMillis)) {
				end.run();
				end = null;
			}
			place.accept(prefix + "-" + i);
			Thread.sleep(30);
		}
		if (end != null) {
			Thread.sleep(Math.max(0, outageMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - outageStarted)));
			end.run();
		}
	}

	private static long distinctReceived(String prefix) {
		return OrderChecks.RECEIVED.stream()
			.map(OrderChecks.Check::orderId)
			.filter((id) -> id.startsWith(prefix + "-"))
			.distinct()
			.count();
	}

	private static ConfigurableApplicationContext application(boolean resubmitOnStart) {
		return new SpringApplicationBuilder(OrdersApplication.class).properties(properties(resubmitOnStart)).run();
	}

	private static String[] properties(boolean resubmitOnStart) {
		return new String[] { "spring.datasource.url=" + database.jdbcUrl(),
				"spring.datasource.username=" + database.user(), "spring.datasource.password=" + database.password(),
				"spring.sql.init.mode=always", "spring.modulith.events.jdbc.schema-initialization.enabled=true",
				"spring.modulith.events.republish-outstanding-events-on-restart=" + resubmitOnStart,
				"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
				"spring.main.web-application-type=none" };
	}

	private static Process childApplication() throws IOException {
		List<String> command = new ArrayList<>(
				List.of(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
						System.getProperty("java.class.path"), OrdersApplication.class.getName()));
		for (String property : properties(false)) {
			command.add("--" + property);
		}
		return new ProcessBuilder(command).redirectErrorStream(true).start();
	}

	private static BlockingQueue<String> lines(Process child) {
		BlockingQueue<String> lines = new LinkedBlockingQueue<>();
		Thread reader = new Thread(() -> {
			try (BufferedReader out = new BufferedReader(
					new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
				for (String line = out.readLine(); line != null; line = out.readLine()) {
					lines.add(line);
				}
			}
			catch (IOException ex) {
				// the child ended
			}
		}, "child-output");
		reader.setDaemon(true);
		reader.start();
		return lines;
	}

	private static void awaitLine(BlockingQueue<String> lines, String expected, Process child)
			throws InterruptedException {
		List<String> seen = new ArrayList<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
		while (System.nanoTime() < deadline) {
			String line = lines.poll(200, TimeUnit.MILLISECONDS);
			if (line != null) {
				seen.add(line);
				if (line.equals(expected)) {
					return;
				}
			}
			else if (!child.isAlive()) {
				break;
			}
		}
		throw new AssertionError("The child application did not print '" + expected + "':\n"
				+ seen.stream().collect(Collectors.joining("\n")));
	}

	private static List<OrderChecks.Check> received(String orderId) {
		return OrderChecks.RECEIVED.stream().filter((check) -> check.orderId().equals(orderId)).toList();
	}

	private static List<OrderChecks.Check> payments(String prefix) {
		return OrderChecks.PAYMENTS.stream().filter((check) -> check.orderId().startsWith(prefix + "-")).toList();
	}

	private static int incomplete(ConfigurableApplicationContext context) {
		return new JdbcTemplate(context.getBean(javax.sql.DataSource.class))
			.queryForObject("SELECT COUNT(*) FROM event_publication WHERE completion_date IS NULL", Integer.class);
	}

	private static int publications(ConfigurableApplicationContext context, String orderId) {
		return new JdbcTemplate(context.getBean(javax.sql.DataSource.class)).queryForObject(
				"SELECT COUNT(*) FROM event_publication WHERE serialized_event LIKE ?", Integer.class,
				"%" + orderId + "%");
	}

}
