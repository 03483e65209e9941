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

package io.github.delayqueue.core.internal.delivery;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import reactor.core.Disposable;
import reactor.core.Disposables;

import io.github.delayqueue.core.internal.redis.QueueKeys;

import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.stream.ByteBufferRecord;
import org.springframework.data.redis.connection.stream.ByteRecord;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;
import org.springframework.data.redis.connection.stream.StreamRecords;

/**
 * A read of {@link GroupReads} that may block, sent on the reader's reactive connection
 * (a dedicated one: the client sends a blocking command there) without waiting: no thread
 * blocks on it. It keeps the slots reserved for it and, once answered on the client's
 * thread, the entries or the failure, for the reader's next step to handle.
 */
final class SentRead {

	final int granted;

	final int perStream;

	final long sentNanos;

	/** When it is given up unanswered (System.nanoTime). */
	final long deadline;

	volatile Disposable subscription = Disposables.disposed();

	volatile List<ByteRecord> records;

	volatile Throwable failure;

	volatile boolean done;

	SentRead(int granted, int perStream, long sentNanos, long deadline) {
		this.granted = granted;
		this.perStream = perStream;
		this.sentNanos = sentNanos;
		this.deadline = deadline;
	}

	void answered(List<ByteRecord> records, Throwable failure, Runnable answered) {
		if (this.done) {
			// collectList answers once, then completes
			return;
		}
		this.records = records;
		this.failure = failure;
		this.done = true;
		answered.run();
	}

	/**
	 * Sends a read that may block on the reactive connection (its own, dedicated one),
	 * holding no thread while it blocks.
	 * @param deadline when the read is given up unanswered (System.nanoTime)
	 * @param answered run on the client's thread once the read is answered
	 * @return the read sent
	 */
	static SentRead send(ReactiveRedisConnection reactive, ListenerContext context, StreamReadOptions options,
			int granted, int perStream, long sentNanos, long deadline, Runnable answered, String... streams) {
		@SuppressWarnings({ "unchecked", "rawtypes" })
		StreamOffset<ByteBuffer>[] offsets = new StreamOffset[streams.length];
		for (int i = 0; i < streams.length; i++) {
			offsets[i] = StreamOffset.create(ByteBuffer.wrap(QueueKeys.bytes(streams[i])), ReadOffset.lastConsumed());
		}
		SentRead read = new SentRead(granted, perStream, sentNanos, deadline);
		read.subscription = reactive.streamCommands()
			.xReadGroup(Consumer.from(context.group(), context.consumer()), options, offsets)
			.map(SentRead::bytes)
			.collectList()
			.subscribe((records) -> read.answered(records, null, answered),
					(failure) -> read.answered(null, failure, answered),
					() -> read.answered(List.of(), null, answered));
		return read;
	}

	private static ByteRecord bytes(ByteBufferRecord record) {
		Map<byte[], byte[]> fields = new LinkedHashMap<>();
		record.getValue().forEach((field, value) -> fields.put(bytes(field), bytes(value)));
		return StreamRecords.rawBytes(fields).withStreamKey(bytes(record.getStream())).withId(record.getId());
	}

	private static byte[] bytes(ByteBuffer buffer) {
		ByteBuffer copy = buffer.duplicate();
		byte[] bytes = new byte[copy.remaining()];
		copy.get(bytes);
		return bytes;
	}

}
