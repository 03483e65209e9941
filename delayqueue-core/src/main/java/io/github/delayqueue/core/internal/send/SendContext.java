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

import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.routing.QueueLayouts;
import io.github.delayqueue.core.observation.DelayQueueObservations;

/**
 * What the send path needs of its engine, given once when the engine is built: no step of
 * a send reaches back into the engine.
 *
 * @param scripts the script runner
 * @param layouts the queues' partition layouts (routing, registration)
 * @param codec the payload codec
 * @param maxPayloadSize the payload size limit in bytes
 * @param maxHeadersSize the headers size limit in bytes
 * @param expireAfter a queue's declared time to live from the due time, or {@code null}
 * @param fairShare whether a queue is fair-share
 * @param sendBatchSize the most messages of one partition per script call
 * @param compactArgument the scripts' far-tier argument
 * ({@code <compactAfter ms>:<slot minimum>})
 * @param observer the engine's observer, told of every send
 * @param observations the registry sends are observed in
 * @param sendAfterCommit whether sends inside a Spring transaction wait for its commit
 * @param scheduled told of the earliest due time a send scheduled in a partition (epoch
 * ms, by the Redis clock), after its script: this engine's scheduler of the partition, if
 * any, promotes then without waiting for the wake-up the script publishes (one lost while
 * the subscription's server hangs)
 */
public record SendContext(ScriptRunner scripts, QueueLayouts layouts, MessageCodec codec, int maxPayloadSize,
		int maxHeadersSize, Function<String, Duration> expireAfter, Predicate<String> fairShare, int sendBatchSize,
		String compactArgument, DelayQueueObserver observer, DelayQueueObservations observations,
		boolean sendAfterCommit, BiConsumer<QueueKeys, Long> scheduled) {

}
