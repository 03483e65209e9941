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

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.csrf.CsrfToken;

/**
 * The checks of {@link DashboardWrites} that need Spring Security; loaded only when it is
 * on the class path.
 */
final class SecuredWrites {

	private SecuredWrites() {
	}

	static String refusal(HttpServletRequest request, String authority) {
		Authentication user = SecurityContextHolder.getContext().getAuthentication();
		if (user == null || !user.isAuthenticated() || user instanceof AnonymousAuthenticationToken) {
			return "Dashboard writes need a signed-in user with the authority '" + authority + "'";
		}
		boolean granted = user.getAuthorities()
			.stream()
			.map(GrantedAuthority::getAuthority)
			.anyMatch(authority::equals);
		if (!granted) {
			return "User '" + user.getName() + "' lacks the authority '" + authority + "' that dashboard writes need";
		}
		if (!(request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken)) {
			return "Dashboard writes need Spring Security's CSRF protection, which is off for this request";
		}
		return null;
	}

	static Map<String, Object> csrf(HttpServletRequest request) {
		if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
			return Map.of("csrfHeader", token.getHeaderName(), "csrfToken", token.getToken());
		}
		return Map.of();
	}

}
