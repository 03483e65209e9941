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

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Debian's headless Chromium and its driver ({@code chromium} and
 * {@code chromium-driver}, which {@code .ci/run} installs), for the dashboard's browser
 * tests; a test that needs it is skipped, saying why, where they are not installed.
 */
final class HeadlessChromium {

	static final String CHROMIUM = "/usr/bin/chromium";

	static final String CHROMEDRIVER = "/usr/bin/chromedriver";

	private HeadlessChromium() {
	}

	static WebDriver start() {
		assumeTrue(new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute(),
				"No headless browser here: install Debian's chromium and chromium-driver (.ci/run does)");
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM);
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
				"--disable-sync", "--window-size=1400,900", "--user-data-dir=" + tempDir());
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
			.usingAnyFreePort()
			.build();
		return new ChromeDriver(service, options);
	}

	private static String tempDir() {
		try {
			return Files.createTempDirectory("dashboard-chromium").toString();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
