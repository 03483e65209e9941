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

package io.github.delayqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Sends that belong to a database transaction (H2 and a DataSourceTransactionManager):
 * sent once it commits, never when it rolls back, per call or for every send.
 */
@RedisTest
class TransactionalSendTests {

	private final RedisConnectionFactory connectionFactory;

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final Set<String> received = ConcurrentHashMap.newKeySet();

	private String queue;

	private DelayQueueEngine engine;

	private DelayQueueListenerContainer container;

	TransactionalSendTests(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new org.h2.Driver(),
				"jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1");
		this.jdbc = new JdbcTemplate(dataSource);
		this.jdbc.execute("CREATE TABLE IF NOT EXISTS orders (id VARCHAR(20) PRIMARY KEY)");
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	@BeforeEach
	void start(TestInfo info) {
		this.queue = info.getTestMethod().orElseThrow().getName();
		this.engine = engine(false);
	}

	private DelayQueueEngine engine(boolean afterCommit) {
		DelayQueueEngine built = DelayQueueEngine.builder(this.connectionFactory).sendAfterCommit(afterCommit).build();
		this.container = built
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> this.received.add(payload))
			.build();
		this.container.start();
		return built;
	}

	@AfterEach
	void stop() {
		this.container.stop();
		this.engine.close();
	}

	private long inRedis() {
		QueueStats stats = this.engine.admin().stats(this.queue);
		return stats.scheduled() + stats.ready() + stats.inFlight();
	}

	private DelayMessage<String> timeout(String order) {
		return DelayMessage.builder(order).queue(this.queue).id("timeout-" + order).build();
	}

	@Test
	void aCommittedTransactionSendsItsMessage() throws Exception {
		CompletableFuture<SendResult> sent = this.transactions.execute((status) -> {
			this.jdbc.update("INSERT INTO orders VALUES ('o-1')");
			CompletableFuture<SendResult> future = this.engine.template().sendAfterCommit(timeout("o-1"));
			// nothing reaches Redis before the commit
			assertThat(future).isNotDone();
			assertThat(inRedis()).isZero();
			return future;
		});
		assertThat(sent.get(5, TimeUnit.SECONDS).status()).isEqualTo(SendResult.Status.READY);
		assertThat(sent.get().id()).isEqualTo("timeout-o-1");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.received.contains("o-1"));
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE id = 'o-1'", Integer.class)).isOne();
	}

	@Test
	void aRolledBackTransactionSendsNothing() throws Exception {
		CompletableFuture<SendResult> sent = this.transactions.execute((status) -> {
			this.jdbc.update("INSERT INTO orders VALUES ('o-2')");
			CompletableFuture<SendResult> future = this.engine.template().sendAfterCommit(timeout("o-2"));
			status.setRollbackOnly();
			return future;
		});
		assertThat(sent).isCancelled();
		Thread.sleep(300);
		assertThat(inRedis()).isZero();
		assertThat(this.received).isEmpty();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE id = 'o-2'", Integer.class)).isZero();
	}

	@Test
	void anInvalidMessageFailsInsideTheTransaction() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.transactions.executeWithoutResult((status) -> {
			this.jdbc.update("INSERT INTO orders VALUES ('o-3')");
			this.engine.template()
				.sendAfterCommit(DelayMessage.builder("x".repeat(2 * 1024 * 1024)).queue(this.queue).build());
		})).withMessageContaining("over the limit");
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE id = 'o-3'", Integer.class)).isZero();
	}

	@Test
	void outsideATransactionTheMessageIsSentAtOnce() throws Exception {
		CompletableFuture<SendResult> sent = this.engine.template().sendAfterCommit(timeout("o-4"));
		assertThat(sent).isDone();
		assertThat(sent.get().status()).isEqualTo(SendResult.Status.READY);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.received.contains("o-4"));
	}

	@Test
	void withTheEngineOptionEverySendInATransactionWaitsForTheCommit() {
		this.container.stop();
		this.engine.close();
		this.engine = engine(true);
		SendResult deferred = this.transactions.execute((status) -> {
			SendResult result = this.engine.template().send(timeout("o-5"));
			assertThat(inRedis()).isZero();
			return result;
		});
		assertThat(deferred.status()).isEqualTo(SendResult.Status.DEFERRED);
		assertThat(deferred.id()).isEqualTo("timeout-o-5");
		assertThat(deferred.dueTime()).isNull();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.received.contains("o-5"));
		this.transactions.executeWithoutResult((status) -> {
			this.engine.template().send(timeout("o-6"));
			status.setRollbackOnly();
		});
		// outside a transaction, sends go at once
		assertThat(this.engine.template().send(timeout("o-7")).status()).isEqualTo(SendResult.Status.READY);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.received.contains("o-7"));
		assertThat(this.received).doesNotContain("o-6");
	}

	@Test
	void withTheEngineOptionAsyncSendsInATransactionWaitForTheCommitToo() throws Exception {
		this.container.stop();
		this.engine.close();
		this.engine = engine(true);
		CompletableFuture<SendResult> rolledBack = this.transactions.execute((status) -> {
			CompletableFuture<SendResult> future = this.engine.template().sendAsync(timeout("o-9"));
			status.setRollbackOnly();
			return future;
		});
		CompletableFuture<List<SendResult>> committed = this.transactions.execute((status) -> {
			CompletableFuture<List<SendResult>> future = this.engine.template()
				.sendAllAsync(List.of(timeout("o-10"), timeout("o-11")));
			// not before the commit: on the async executor, a send would already be
			// racing
			await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(1)).until(() -> !future.isDone());
			assertThat(inRedis()).isZero();
			return future;
		});
		assertThat(committed.get(5, TimeUnit.SECONDS)).extracting(SendResult::status)
			.containsExactly(SendResult.Status.READY, SendResult.Status.READY);
		assertThat(rolledBack).isCancelled();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.received.containsAll(List.of("o-10", "o-11")));
		// bad input fails the future, as an async send outside a transaction does
		CompletableFuture<SendResult> invalid = this.transactions.execute((status) -> this.engine.template()
			.sendAsync(DelayMessage.builder("x".repeat(2 << 20)).queue(this.queue).build()));
		assertThat(invalid).isCompletedExceptionally();
		assertThat(this.received).doesNotContain("o-9");
	}

	@Test
	void waitingForADeferredSendInsideItsTransactionFailsAtOnceSayingWhyAndTheSendStillHappens() throws Exception {
		this.container.stop();
		this.engine.close();
		this.engine = engine(true);
		String why = "completes after the transaction commits, and the thread waiting for it holds that "
				+ "transaction";
		List<CompletableFuture<?>> futures = this.transactions.execute((status) -> {
			CompletableFuture<SendResult> async = this.engine.template().sendAsync(timeout("o-20"));
			CompletableFuture<List<SendResult>> all = this.engine.template().sendAllAsync(List.of(timeout("o-21")));
			CompletableFuture<SendResult> afterCommit = this.engine.template().sendAfterCommit(timeout("o-22"));
			CompletableFuture<String> derived = async.thenApply(SendResult::id);
			// first with a timeout: without the check, it times out rather than hang the
			// test
			assertThatThrownBy(() -> all.get(1, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
			assertThatThrownBy(() -> async.get(1, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining(why);
			assertThatThrownBy(async::join).isInstanceOf(IllegalStateException.class).hasMessageContaining(why);
			assertThatThrownBy(async::get).isInstanceOf(IllegalStateException.class).hasMessageContaining(why);
			assertThatThrownBy(afterCommit::join).isInstanceOf(IllegalStateException.class);
			assertThatThrownBy(derived::join).isInstanceOf(IllegalStateException.class);
			return List.of(async, all, afterCommit, derived);
		});
		// once the transaction committed, the same thread may wait
		assertThat(futures.get(3).get(5, TimeUnit.SECONDS)).isEqualTo("timeout-o-20");
		for (CompletableFuture<?> future : futures) {
			assertThat(future.get(5, TimeUnit.SECONDS)).isNotNull();
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> this.received.containsAll(List.of("o-20", "o-21", "o-22")));
		// another thread may wait while the transaction is open: it returns after the
		// commit
		CompletableFuture<SendResult> waitedElsewhere = new CompletableFuture<>();
		this.transactions.executeWithoutResult((status) -> {
			CompletableFuture<SendResult> sent = this.engine.template().sendAsync(timeout("o-23"));
			new Thread(() -> waitedElsewhere.complete(sent.join())).start();
		});
		assertThat(waitedElsewhere.get(5, TimeUnit.SECONDS).status()).isEqualTo(SendResult.Status.READY);
	}

	@Test
	void aSendThatFailsAfterTheCommitFailsTheFuture() throws Exception {
		RedisServer down = RedisServer.start();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(down.standaloneConfiguration());
		factory.afterPropertiesSet();
		factory.start();
		down.stop();
		try (DelayQueueEngine unreachable = DelayQueueEngine.builder(factory).build()) {
			CompletableFuture<SendResult> sent = this.transactions
				.execute((status) -> unreachable.template().sendAfterCommit(timeout("o-8")));
			await().atMost(Duration.ofSeconds(10)).until(sent::isDone);
			assertThat(sent).isCompletedExceptionally();
			assertThatThrownBy(sent::get).hasCauseInstanceOf(DelayQueueException.class)
				.hasMessageContaining("Cannot send to queue(s) " + this.queue);
		}
		finally {
			factory.destroy();
			down.close();
		}
	}

}
