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

import java.util.List;

/**
 * What can be done with a queue's dead letters: list them, see which errors dominate,
 * replay or delete one, those of one error, or all. Implemented by
 * {@link DelayQueueAdmin}.
 */
public interface DeadLetterOperations {

	/**
	 * Lists dead letters, oldest first.
	 * @param queue the queue
	 * @param after the entry id to start after ({@code <ms>-<seq>}), or {@code null} for
	 * the first page
	 * @param count the page size
	 * @return the page
	 */
	List<DeadLetter> deadLetters(String queue, String after, int count);

	/**
	 * Counts a queue's newest dead letters by error (class, and reason up to its first
	 * digit or quote): bounded work, one script call per partition that reads at most
	 * {@code read} entries in Redis and answers only the counts.
	 * @param queue the queue
	 * @param read how many of each partition's newest dead letters to read, 1 to 10,000
	 * @return the errors, the most common first
	 * @throws IllegalArgumentException when {@code read} is out of range
	 */
	List<DeadLetterError> deadLetterErrors(String queue, int read);

	/**
	 * Replays the dead letters of one error, oldest first (see {@link #replay}), at most
	 * {@code max}, reading at most ten times as many (at least 10,000) to find them.
	 * @param queue the queue
	 * @param error the error, as {@link #deadLetterErrors} returned it
	 * @param max the most to replay, 1 to 1,000
	 * @return how many were replayed
	 * @throws IllegalArgumentException when {@code max} is out of range
	 */
	int replayDeadLetters(String queue, DeadLetterError error, int max);

	/**
	 * Deletes the dead letters of one error, oldest first, bounded as
	 * {@link #replayDeadLetters}.
	 * @param queue the queue
	 * @param error the error, as {@link #deadLetterErrors} returned it
	 * @param max the most to delete, 1 to 1,000
	 * @return how many were deleted
	 * @throws IllegalArgumentException when {@code max} is out of range
	 */
	int deleteDeadLetters(String queue, DeadLetterError error, int max);

	/**
	 * Replays one dead letter: its group receives it again now, as attempt 1. The group's
	 * listener must be running somewhere for it to be delivered.
	 * @param queue the queue
	 * @param entryId the dead letter's entry id, {@code <ms>-<seq>}
	 * @return whether it was found and replayed
	 * @throws IllegalArgumentException when the entry id is not a stream id
	 */
	boolean replay(String queue, String entryId);

	/**
	 * Replays every dead letter of a queue, or of one group of it.
	 * @param queue the queue
	 * @param group the group, or {@code null} for all groups
	 * @return how many were replayed
	 * @throws IllegalArgumentException when the queue has no such consumer group (see
	 * {@link DelayQueueAdmin#groups(String)}), naming the groups it has
	 */
	int replayAll(String queue, String group);

	/**
	 * Deletes one dead letter.
	 * @param queue the queue
	 * @param entryId the dead letter's entry id, {@code <ms>-<seq>}
	 * @return whether it existed
	 * @throws IllegalArgumentException when the entry id is not a stream id
	 */
	boolean deleteDeadLetter(String queue, String entryId);

	/**
	 * Deletes all dead letters of a queue, in one atomic step.
	 * @param queue the queue
	 * @return how many were deleted: exactly those, also when dead letters are added
	 * concurrently
	 */
	long purgeDeadLetters(String queue);

}
