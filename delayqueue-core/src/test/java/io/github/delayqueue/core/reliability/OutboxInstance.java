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

import com.zaxxer.hikari.HikariDataSource;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An application instance for the outbox fault tests, with an outbox in a database, until
 * the test kills it with SIGKILL. Arguments: Redis port, JDBC URL, user, queue, mode,
 * count. Mode {@code commit}: commits {@code count} transactions that each insert an
 * order and send {@code m-<i>} (due in 8 s) through the outbox, and rolls back as many
 * that send {@code rb-<i>}, then prints {@code COMMITTED}. Mode {@code relay}: prints
 * {@code STARTED} and lets its relay run.
 */
public final class OutboxInstance {

	private OutboxInstance() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
		factory.afterPropertiesSet();
		factory.start();
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(args[1]);
		dataSource.setUsername(args[2]);
		DelayQueueEngine engine = DelayQueueEngine.builder(factory)
			.outbox(dataSource, (outbox) -> outbox.pollInterval(Duration.ofMillis(50)))
			.build();
		String queue = args[3];
		if (args[4].equals("commit")) {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
			int count = Integer.parseInt(args[5]);
			for (int i = 0; i < count; i++) {
				String id = "m-" + i;
				transactions.executeWithoutResult((status) -> {
					jdbc.update("INSERT INTO orders (id) VALUES (?)", id);
					engine.template()
						.sendWithOutbox(
								DelayMessage.builder(id).queue(queue).id(id).delay(Duration.ofSeconds(8)).build());
				});
				String rolledBack = "rb-" + i;
				transactions.executeWithoutResult((status) -> {
					jdbc.update("INSERT INTO orders (id) VALUES (?)", rolledBack);
					engine.template()
						.sendWithOutbox(DelayMessage.builder(rolledBack).queue(queue).id(rolledBack).build());
					status.setRollbackOnly();
				});
			}
			System.out.println("COMMITTED " + count);
		}
		else {
			System.out.println("STARTED");
		}
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

}
