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

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.runtime.Failures;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStreamCommands.XClaimOptions;
import org.springframework.data.redis.connection.stream.RecordId;

/**
 * Gives deliveries that no handler started back to Redis while their queue or group is
 * paused: each stays pending for this consumer, idle for the visibility timeout (so that
 * any instance may take it over at once should this one go away) and with its delivery
 * uncounted, so it costs no attempt. The reader reads them again when the pause ends.
 */
final class GiveBack {

	private static final Log logger = LogFactory.getLog(GiveBack.class);

	private GiveBack() {
	}

	/**
	 * Gives back the deliveries this call settles (those a worker started meanwhile are
	 * left alone) and lets go of them.
	 * @return how many were given back
	 */
	static int giveBack(Holdings holdings, Collection<Delivery> deliveries) {
		Map<ListenerContext, Map<String, List<RecordId>>> byStream = new LinkedHashMap<>();
		List<Delivery> settled = new ArrayList<>();
		for (Delivery delivery : deliveries) {
			if (delivery.settle()) {
				settled.add(delivery);
				byStream.computeIfAbsent(delivery.context, (context) -> new LinkedHashMap<>())
					.computeIfAbsent(delivery.stream, (stream) -> new ArrayList<>())
					.add(RecordId.of(delivery.entryId));
			}
		}
		try {
			byStream.forEach((context, streams) -> streams.forEach((stream, ids) -> claim(context, stream, ids)));
		}
		catch (RuntimeException ex) {
			// still pending for this consumer: read again on resume, or recovered after
			// the visibility timeout
			logger.debug("Could not give back " + settled.size() + " message(s) of a paused queue: "
					+ Failures.describe(ex));
		}
		finally {
			settled.forEach(holdings::finished);
		}
		return settled.size();
	}

	private static void claim(ListenerContext context, String stream, List<RecordId> ids) {
		context.scripts().execute((connection) -> {
			claim(connection, context, stream, ids);
			return null;
		});
	}

	/**
	 * Gives entries this consumer read back: idle for the visibility timeout, so that
	 * recovery (anyone's) may take them at once, and their delivery not counted.
	 * @param connection the connection
	 * @param context the partition's context
	 * @param stream the stream
	 * @param ids the entries
	 */
	static void claim(RedisConnection connection, ListenerContext context, String stream, List<RecordId> ids) {
		connection.streamCommands()
			.xClaimJustId(QueueKeys.bytes(stream), context.group(), context.consumer(),
					XClaimOptions.minIdle(Duration.ZERO)
						.ids(ids)
						.idle(context.settings().visibilityTimeout())
						.retryCount(0));
	}

}
