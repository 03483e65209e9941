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
package io.github.delayqueue.dashboard;

import java.util.Map;

import io.github.delayqueue.core.DelayQueueException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * How the dashboard's API answers what went wrong: always {@code {"error": reason}}, with
 * 404 for what does not exist or may not be seen, 400 for bad input, 403 or 405 for a
 * refused write, and 503 when Redis could not be reached.
 */
@RestControllerAdvice(assignableTypes = { DashboardApi.class, DashboardBulkApi.class, DashboardConcurrencyApi.class,
		DashboardMessageApi.class })
class DashboardErrors {

	@ExceptionHandler(DashboardWrites.RefusedException.class)
	ResponseEntity<Map<String, String>> refused(DashboardWrites.RefusedException ex) {
		return ResponseEntity.status(ex.status()).body(Map.of("error", ex.getMessage()));
	}

	@ExceptionHandler(DashboardAccess.NotFoundException.class)
	ResponseEntity<Map<String, String>> notFound(DashboardAccess.NotFoundException ex) {
		return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", ex.getMessage()));
	}

	@ExceptionHandler({ IllegalArgumentException.class, IllegalStateException.class })
	ResponseEntity<Map<String, String>> badRequest(RuntimeException ex) {
		return ResponseEntity.badRequest().body(Map.of("error", String.valueOf(ex.getMessage())));
	}

	@ExceptionHandler(DelayQueueException.class)
	ResponseEntity<Map<String, String>> unavailable(DelayQueueException ex) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.body(Map.of("error", String.valueOf(ex.getMessage())));
	}

}
