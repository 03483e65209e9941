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

package io.github.delayqueue.samples.ordertimeout;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * How to secure the {@code delayqueue} endpoint's write operations (on in this sample
 * with {@code management.endpoint.delayqueue.access=unrestricted}) and the dashboard's
 * ({@code delayqueue.dashboard.read-only=false}): reads stay open for the demo, writes
 * (replay, cancel, delete, purge, pause) need the {@code OPS_ADMIN} role, over HTTP Basic
 * for the endpoint and after signing in at {@code /login} for the dashboard, whose writes
 * also need Spring Security's CSRF token. The orders API is open. A real application
 * would protect the reads too (dead letters show payloads) and keep its users elsewhere
 * than in properties.
 */
@Configuration(proxyBeanMethods = false)
class OpsSecurityConfiguration {

	@Bean
	SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
		http.authorizeHttpRequests((requests) -> requests.requestMatchers(HttpMethod.GET, "/actuator/**")
			.permitAll()
			.requestMatchers("/actuator/**")
			.hasRole("OPS_ADMIN")
			.anyRequest()
			.permitAll())
			.httpBasic(Customizer.withDefaults())
			// the dashboard's operators sign in with a form, then return to the dashboard
			.formLogin((login) -> login.defaultSuccessUrl("/delayqueue/"))
			// the actuator and the orders API are JSON APIs called with curl: no browser
			// session, no CSRF token; the dashboard keeps CSRF protection
			.csrf((csrf) -> csrf.ignoringRequestMatchers("/actuator/**", "/orders/**"));
		return http.build();
	}

	@Bean
	UserDetailsService opsUsers(@Value("${sample.ops.admin-password}") String adminPassword,
			@Value("${sample.ops.viewer-password}") String viewerPassword) {
		return new InMemoryUserDetailsManager(
				User.withUsername("ops").password("{noop}" + adminPassword).roles("OPS_ADMIN").build(),
				User.withUsername("viewer").password("{noop}" + viewerPassword).roles("OPS_READ").build());
	}

}
