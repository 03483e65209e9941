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

import io.github.delayqueue.autoconfigure.DashboardProperties;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.HttpStatus;
import org.springframework.util.ClassUtils;

/**
 * Decides, on the server, whether a request may write (pause, cancel, replay, purge...):
 * never while the dashboard is read-only (405); otherwise only for a signed-in user with
 * the write authority, through Spring Security, on a request that passed its CSRF
 * protection and carries the dashboard's own header (403). Hiding buttons is the page's
 * business; this is what enforces it.
 */
final class DashboardWrites {

	/** The header every write of the dashboard's page carries. */
	static final String HEADER = "X-DelayQueue-Dashboard";

	private static final boolean SECURITY = ClassUtils.isPresent(
			"org.springframework.security.core.context.SecurityContextHolder", DashboardWrites.class.getClassLoader())
			&& ClassUtils.isPresent("org.springframework.security.web.csrf.CsrfToken",
					DashboardWrites.class.getClassLoader());

	private final DashboardProperties properties;

	DashboardWrites(DashboardProperties properties) {
		this.properties = properties;
	}

	/**
	 * Refuses a write that may not be done.
	 * @param request the request
	 * @throws RefusedException when the write is refused, with the status and the reason
	 */
	void check(HttpServletRequest request) {
		String refusal = refusal(request);
		if (refusal != null) {
			throw new RefusedException(
					this.properties.isReadOnly() ? HttpStatus.METHOD_NOT_ALLOWED : HttpStatus.FORBIDDEN, refusal);
		}
		if (!"1".equals(request.getHeader(HEADER))) {
			throw new RefusedException(HttpStatus.FORBIDDEN,
					"Dashboard writes must come from the dashboard's page (header " + HEADER + ")");
		}
	}

	/**
	 * Returns why a request may not write, or {@code null} when it may.
	 */
	String refusal(HttpServletRequest request) {
		if (this.properties.isReadOnly()) {
			return "The dashboard is read-only: writes need delayqueue.dashboard.read-only=false";
		}
		if (!SECURITY) {
			return "Dashboard writes need Spring Security (spring-boot-starter-security): "
					+ "without it nobody can be checked for the write authority";
		}
		return SecuredWrites.refusal(request, this.properties.getWriteAuthority());
	}

	/**
	 * What the page needs to know about the user: whether writes are possible, and the
	 * CSRF token to send with them.
	 */
	Map<String, Object> session(HttpServletRequest request) {
		String refusal = refusal(request);
		Map<String, Object> session = new java.util.LinkedHashMap<>();
		session.put("readOnly", this.properties.isReadOnly());
		session.put("canWrite", refusal == null);
		session.put("whyNot", refusal);
		session.put("user", (request.getUserPrincipal() != null) ? request.getUserPrincipal().getName() : null);
		session.put("traceLink", this.properties.getTraceLink());
		if (SECURITY) {
			session.putAll(SecuredWrites.csrf(request));
		}
		return session;
	}

	/**
	 * A refused request: the status to answer and why.
	 */
	static class RefusedException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final HttpStatus status;

		RefusedException(HttpStatus status, String message) {
			super(message);
			this.status = status;
		}

		HttpStatus status() {
			return this.status;
		}

	}

}
