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

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * Serves the dashboard's page and its script and style, from the jar (no CDN): the page
 * at {@code <path>/}, the assets under {@code <path>/assets/}. Every answer carries a
 * Content Security Policy ({@link DashboardHeaders}).
 */
@Controller
@RequestMapping("${delayqueue.dashboard.path:/delayqueue}")
class DashboardPage {

	static final String LOCATION = "io/github/delayqueue/dashboard/static/";

	private static final Map<String, MediaType> ASSETS = Map.of("dashboard.js",
			MediaType.parseMediaType("text/javascript;charset=UTF-8"), "dashboard.css",
			MediaType.parseMediaType("text/css;charset=UTF-8"));

	@GetMapping("")
	ResponseEntity<Void> redirect(jakarta.servlet.http.HttpServletRequest request) {
		// the page's links are relative to <path>/
		return ResponseEntity.status(302).header("Location", request.getRequestURI() + "/").build();
	}

	@GetMapping("/")
	ResponseEntity<Resource> page() {
		return ResponseEntity.ok()
			.contentType(MediaType.parseMediaType("text/html;charset=UTF-8"))
			.cacheControl(CacheControl.noStore())
			.body(new ClassPathResource(LOCATION + "index.html"));
	}

	@GetMapping("/assets/{name}")
	ResponseEntity<Resource> asset(@PathVariable String name) {
		MediaType type = ASSETS.get(name);
		if (type == null) {
			return ResponseEntity.notFound().build();
		}
		return ResponseEntity.ok()
			.contentType(type)
			.cacheControl(CacheControl.noCache())
			.body(new ClassPathResource(LOCATION + name));
	}

}
