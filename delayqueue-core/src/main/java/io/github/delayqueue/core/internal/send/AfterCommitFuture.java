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

package io.github.delayqueue.core.internal.send;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of a send that waits for its transaction's commit. Waiting for it on the
 * thread that holds that transaction, before the transaction ended, could only wait
 * forever (the commit cannot come while the thread waits), so {@code get} and
 * {@code join} fail at once there with an {@link IllegalStateException} saying why. The
 * futures derived from it ({@code thenApply}, ...) check the same.
 *
 * @param <T> the result type
 */
public final class AfterCommitFuture<T> extends CompletableFuture<T> {

	private final Transaction transaction;

	/** A future of the current thread's transaction. */
	public AfterCommitFuture() {
		this(new Transaction(Thread.currentThread()));
	}

	private AfterCommitFuture(Transaction transaction) {
		this.transaction = transaction;
	}

	/**
	 * Called when the transaction committed or rolled back: waiting is safe from then.
	 */
	public void transactionEnded() {
		this.transaction.ended = true;
	}

	@Override
	public <U> CompletableFuture<U> newIncompleteFuture() {
		return new AfterCommitFuture<>(this.transaction);
	}

	@Override
	public T get() throws InterruptedException, ExecutionException {
		checkWait();
		return super.get();
	}

	@Override
	public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
		checkWait();
		return super.get(timeout, unit);
	}

	@Override
	public T join() {
		checkWait();
		return super.join();
	}

	private void checkWait() {
		if (!isDone() && !this.transaction.ended && Thread.currentThread() == this.transaction.thread) {
			throw new IllegalStateException("This send completes after the transaction commits, and the thread "
					+ "waiting for it holds that transaction: it would wait forever. Wait for the future after the "
					+ "transaction ended, attach a callback (whenComplete), or call send(...), which returns DEFERRED "
					+ "at once and sends after the commit");
		}
	}

	/** The transaction a send waits for: its thread, and whether it ended. */
	private static final class Transaction {

		private final Thread thread;

		private volatile boolean ended;

		Transaction(Thread thread) {
			this.thread = thread;
		}

	}

}
