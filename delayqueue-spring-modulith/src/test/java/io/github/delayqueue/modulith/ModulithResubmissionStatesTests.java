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

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.modulith.app.OrderChecks;
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
import static org.awaitility.Awaitility.await;

/**
 * The states a Redis pause or a JVM's death can leave a Modulith publication in, at every
 * {@code delayqueue.modulith.*} default (10 s looks, {@code stale-after} 1 m, operation
 * timeout 2 s), with Modulith's JDBC registry on a real PostgreSQL and a real Redis: each
 * is resubmitted while the application runs.
 */
class ModulithResubmissionStatesTests {

	private static DatabaseServer database;

	private static RedisServer redis;

	@BeforeAll
	static void start() {
		Assumptions.assumeTrue(DatabaseServer.isAvailable(DatabaseServer.Kind.POSTGRESQL), "no PostgreSQL here");
		database = DatabaseServer.start(DatabaseServer.Kind.POSTGRESQL);
		redis = RedisServer.builder().start();
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
	}

	@Test
	void atTheDefaultsAPublicationWhoseResubmissionFailedIsResubmittedAgain() throws Exception {
		try (ConfigurableApplicationContext context = application()) {
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
			redis.pause();
			try {
				// the send times out (2 s): failed
				context.getBean(Orders.class).place("f-1", false);
				await().atMost(Duration.ofSeconds(10)).until(() -> "FAILED".equals(status(jdbc, "f-1")));
				// Redis still paused at the next look (10 s): the resubmission's send
				// times out too, and the registry marks the publication failed again
				await().atMost(Duration.ofSeconds(20)).until(() -> attempts(jdbc, "f-1") >= 2);
				await().atMost(Duration.ofSeconds(10)).until(() -> "FAILED".equals(status(jdbc, "f-1")));
			}
			finally {
				redis.resume();
			}
			// resubmitted at a later look, delivered, completed
			await().atMost(Duration.ofSeconds(30))
				.until(() -> !received("f-1").isEmpty() && status(jdbc, "f-1").equals("COMPLETED"));
		}
	}

	@Test
	void atTheDefaultsAPublicationLeftResubmittedIsResubmittedOnceItIsStale() throws Exception {
		try (ConfigurableApplicationContext context = application()) {
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
			context.getBean(Orders.class).place("s-0", false);
			await().atMost(Duration.ofSeconds(15)).until(() -> "COMPLETED".equals(status(jdbc, "s-0")));
			// what a JVM that died during a resubmission (or a resubmission whose
			// listener
			// threw before its send) leaves: marked resubmitted two minutes ago, never
			// failed nor completed since
			jdbc.update("INSERT INTO event_publication (id, listener_id, event_type, serialized_event, "
					+ "publication_date, status, completion_attempts, last_resubmission_date) "
					+ "SELECT gen_random_uuid(), listener_id, event_type, REPLACE(serialized_event, 's-0', 's-1'), "
					+ "now() - INTERVAL '3 minutes', 'RESUBMITTED', 2, now() - INTERVAL '2 minutes' "
					+ "FROM event_publication WHERE serialized_event LIKE '%s-0%'");
			// past stale-after (1 m) since its resubmission: resubmitted at the next look
			await().atMost(Duration.ofSeconds(30))
				.until(() -> !received("s-1").isEmpty() && "COMPLETED".equals(status(jdbc, "s-1")));
			assertThat(context.getBean(PublicationResubmitter.class).staleResubmitted()).isPositive();
		}
	}

	@Test
	void atTheDefaultsAPublicationResubmittedRecentlyIsLeftToItsResubmission() throws Exception {
		try (ConfigurableApplicationContext context = application()) {
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
			context.getBean(Orders.class).place("t-0", false);
			await().atMost(Duration.ofSeconds(15)).until(() -> "COMPLETED".equals(status(jdbc, "t-0")));
			// resubmitted (by this or another instance) 10 s ago: its send may still run
			jdbc.update("INSERT INTO event_publication (id, listener_id, event_type, serialized_event, "
					+ "publication_date, status, completion_attempts, last_resubmission_date) "
					+ "SELECT gen_random_uuid(), listener_id, event_type, REPLACE(serialized_event, 't-0', 't-1'), "
					+ "now() - INTERVAL '3 minutes', 'RESUBMITTED', 2, now() - INTERVAL '10 seconds' "
					+ "FROM event_publication WHERE serialized_event LIKE '%t-0%'");
			try {
				// two looks (10 s each): left alone
				await().during(Duration.ofSeconds(21))
					.atMost(Duration.ofSeconds(25))
					.until(() -> "RESUBMITTED".equals(status(jdbc, "t-1")) && received("t-1").isEmpty());
			}
			finally {
				jdbc.update("DELETE FROM event_publication WHERE serialized_event LIKE '%t-1%'");
			}
		}
	}

	private static String status(JdbcTemplate jdbc, String orderId) {
		List<String> statuses = jdbc.queryForList("SELECT status FROM event_publication WHERE serialized_event LIKE ?",
				String.class, "%\"" + orderId + "\"%");
		return statuses.isEmpty() ? null : statuses.get(0);
	}

	private static int attempts(JdbcTemplate jdbc, String orderId) {
		return jdbc.queryForObject("SELECT COALESCE(MAX(completion_attempts), 0) FROM event_publication "
				+ "WHERE serialized_event LIKE ?", Integer.class, "%\"" + orderId + "\"%");
	}

	private static ConfigurableApplicationContext application() {
		return new SpringApplicationBuilder(OrdersApplication.class)
			.properties("spring.datasource.url=" + database.jdbcUrl(), "spring.datasource.username=" + database.user(),
					"spring.datasource.password=" + database.password(), "spring.sql.init.mode=always",
					"spring.modulith.events.jdbc.schema-initialization.enabled=true",
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.main.web-application-type=none")
			.run();
	}

	private static List<OrderChecks.Check> received(String orderId) {
		return OrderChecks.RECEIVED.stream().filter((check) -> check.orderId().equals(orderId)).toList();
	}

}
