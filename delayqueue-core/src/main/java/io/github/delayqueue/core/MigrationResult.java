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

/**
 * What a migration from another queue did ({@link RedissonMigration},
 * {@link ZSetMigration}).
 *
 * @param from the other queue
 * @param queue the delayqueue queue
 * @param scheduled messages moved that were not due yet, with their due times
 * @param ready messages moved that were due already
 * @param gone entries read that the other queue's consumers took meanwhile, left to them
 * @param left entries still in the other queue when the migration stopped (0 when it
 * finished)
 */
public record MigrationResult(String from, String queue, long scheduled, long ready, long gone, long left) {

	/**
	 * @return whether nothing is left in the other queue
	 */
	public boolean finished() {
		return this.left == 0;
	}

}
