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

package io.github.delayqueue.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/**
 * The settings of the web dashboard, under {@code delayqueue.dashboard}: read by the
 * {@code delayqueue-spring-boot-dashboard} module, ignored without it.
 */
public class DashboardProperties {

	/** Whether the dashboard is served. */
	private boolean enabled = true;

	/** The path the dashboard is served under. */
	private String path = "/delayqueue";

	/**
	 * Whether the dashboard only shows: a write answers 405 (or, before that, 403 from
	 * Spring Security without its CSRF token, 404 for an unknown queue). Set to false to
	 * allow writes to users with the write authority (Spring Security and its CSRF
	 * protection are then required).
	 */
	private boolean readOnly = true;

	/** The authority a user needs for writes (when not read-only). */
	private String writeAuthority = "ROLE_DELAYQUEUE_ADMIN";

	/**
	 * The queues the dashboard shows, as names or patterns with '*' (all when empty).
	 * Other queues answer 404, for reads and writes alike.
	 */
	private List<String> queues = new ArrayList<>();

	/**
	 * A link to a message's trace, with {traceId} where its trace id goes: e.g.
	 * http://localhost:16686/trace/{traceId} (Jaeger),
	 * http://localhost:9411/zipkin/traces/{traceId} (Zipkin) or a Grafana Tempo explore
	 * URL. Must be http or https. None by default: the trace id is shown as text.
	 */
	private String traceLink;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		this.path = path;
	}

	public boolean isReadOnly() {
		return this.readOnly;
	}

	public void setReadOnly(boolean readOnly) {
		this.readOnly = readOnly;
	}

	public String getWriteAuthority() {
		return this.writeAuthority;
	}

	public void setWriteAuthority(String writeAuthority) {
		this.writeAuthority = writeAuthority;
	}

	public List<String> getQueues() {
		return this.queues;
	}

	public void setQueues(List<String> queues) {
		this.queues = queues;
	}

	public String getTraceLink() {
		return this.traceLink;
	}

	public void setTraceLink(String traceLink) {
		this.traceLink = traceLink;
	}

}
