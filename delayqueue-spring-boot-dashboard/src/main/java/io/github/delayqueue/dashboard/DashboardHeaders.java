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

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Puts the dashboard's security headers on every answer under its path, before anything
 * else runs: the page and its assets, the JSON answers, the redirects and the errors
 * (those of Spring Security included, when this filter runs first). The Content Security
 * Policy allows scripts and styles from the application only, so that text shown by the
 * page can never run as script, and no other site may frame it.
 */
final class DashboardHeaders extends OncePerRequestFilter {

	static final String POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
			+ "img-src 'self' data:; object-src 'none'; frame-ancestors 'self'; base-uri 'none'";

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		response.setHeader("Content-Security-Policy", POLICY);
		response.setHeader("X-Content-Type-Options", "nosniff");
		chain.doFilter(request, response);
	}

}
