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

import java.time.Instant;

/**
 * Dead letters that failed alike: the same error class, and the same reason up to its
 * first digit or quote (so "card declined for order 42" and "card declined for order 43"
 * are one error), at most 80 bytes.
 *
 * @param errorClass the class of the last failure
 * @param reasonPrefix what their error messages share
 * @param count how many of the dead letters read have this error
 * @param newest when the newest of them was dead-lettered
 */
public record DeadLetterError(String errorClass, String reasonPrefix, long count, Instant newest) {

}
