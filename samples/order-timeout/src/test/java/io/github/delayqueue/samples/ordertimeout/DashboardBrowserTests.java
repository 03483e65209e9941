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

import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.boot.test.EmbeddedRedis;
import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelaySchedule;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Drives the sample's dashboard in headless Chromium (Debian's {@code chromium} and
 * {@code chromium-driver}, which {@code .ci/run} installs): signs in as the operator,
 * sees the queues and counts, pauses and resumes a queue, replays a dead letter and sees
 * it delivered, finds a message by id, and checks that payloads, headers and ids that
 * hold HTML show as text. Then, without the browser, checks that a write without the CSRF
 * token, or from a user without the write authority, is refused. Skipped, saying why,
 * where no Chromium is installed.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "delayqueue.dashboard.trace-link=http://tempo.example/trace/{traceId}")
@EmbeddedRedis
class DashboardBrowserTests {

	static final String XSS = "<img src=x onerror=\"window.__xss=1\"><script>window.__xss=2</script>";

	private static WebDriver browser;

	@Value("${local.server.port}")
	private int port;

	@Autowired
	private DelayQueueEngine engine;

	@Autowired
	private org.springframework.jdbc.core.JdbcTemplate jdbc;

	@BeforeAll
	static void startBrowser() {
		browser = HeadlessChromium.start();
	}

	@AfterAll
	static void stopBrowser() {
		if (browser != null) {
			browser.quit();
		}
	}

	private String url(String path) {
		return "http://localhost:" + this.port + path;
	}

	private WebElement visible(By by) {
		return new WebDriverWait(browser, Duration.ofSeconds(15))
			.until(ExpectedConditions.visibilityOfElementLocated(by));
	}

	/**
	 * Clicks an element, found again when the page re-rendered meanwhile (an action
	 * re-renders it once its answer arrives).
	 */
	private static void click(By by) {
		new WebDriverWait(browser, Duration.ofSeconds(10)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> {
				driver.findElement(by).click();
				return true;
			});
	}

	/**
	 * Signs in on the login form; once more when the first submit left the browser on the
	 * form (seen on the first test of a run on a loaded machine: the click was lost).
	 */
	private void signInAsTheOperator() {
		for (int attempt = 1;; attempt++) {
			browser.get(url("/login"));
			visible(By.id("username")).sendKeys("ops");
			browser.findElement(By.id("password")).sendKeys("ops-demo");
			browser.findElement(By.cssSelector("button[type=submit]")).click();
			try {
				new WebDriverWait(browser, Duration.ofSeconds(15))
					.until(ExpectedConditions.urlContains("/delayqueue/"));
				return;
			}
			catch (org.openqa.selenium.TimeoutException ex) {
				if (attempt == 2 || browser.getCurrentUrl().contains("error")) {
					throw ex;
				}
			}
		}
	}

	private void confirm() {
		new WebDriverWait(browser, Duration.ofSeconds(5)).until(ExpectedConditions.alertIsPresent()).accept();
	}

	/**
	 * The live view is paused for each test (kept in the browser's storage), so that a
	 * refresh never replaces an element a test holds;
	 * {@link #theLiveViewCountsWithoutAReloadAndPauses} turns it on.
	 */
	@BeforeEach
	void pauseTheLiveView() {
		browser.get(url("/delayqueue/"));
		((org.openqa.selenium.JavascriptExecutor) browser)
			.executeScript("window.localStorage.setItem('delayqueue.live', 'paused')");
	}

	@Test
	void aMessagesPageShowsItsPrettyPayloadItsHeadersAndALinkToItsTrace() {
		String queue = "dashboard-detail";
		this.engine.template()
			.send(DelayMessage.builder(java.util.Map.of("order", 42, "items", List.of("tea")))
				.queue(queue)
				.id("order/42")
				.key("customer-7")
				.header("note", XSS)
				.delay(Duration.ofHours(2))
				.build());
		browser.get("about:blank");
		browser.get(url("/delayqueue/#q/" + queue));
		click(By.linkText("order/42"));
		assertThat(visible(By.id("detail-id")).getText()).isEqualTo("order/42");
		assertThat(browser.findElement(By.id("detail-payload")).getText()).contains("\"order\": 42")
			.contains("\n  \"items\": [");
		// the sample observes its sends: the trace the message carries is the send's
		String carried = this.engine.admin()
			.scheduledMessage(queue, "order/42")
			.orElseThrow()
			.headers()
			.get("traceparent")
			.split("-")[1];
		WebElement link = browser.findElement(By.cssSelector("#detail-trace a"));
		assertThat(link.getText()).isEqualTo(carried).matches("[0-9a-f]{32}");
		assertThat(link.getAttribute("href")).isEqualTo("http://tempo.example/trace/" + carried);
		assertThat(browser.findElement(By.cssSelector("dl.detail")).getText()).contains("customer-7");
		// headers, user data, as text
		assertThat(browser.findElements(By.cssSelector("main pre"))).extracting(WebElement::getText).contains(XSS);
		assertThat(((org.openqa.selenium.JavascriptExecutor) browser).executeScript("return window.__xss")).isNull();
	}

	@Test
	void theLiveViewCountsWithoutAReloadAndPauses() {
		String queue = "dashboard-live";
		this.engine.template().send(queue, "x", Duration.ofHours(1));
		browser.get("about:blank");
		browser.get(url("/delayqueue/#q/" + queue));
		assertThat(visible(By.id("queue-counts")).getText()).startsWith("Scheduled: 1 ");
		assertThat(browser.findElement(By.id("live")).getText()).isEqualTo("Live: paused");
		click(By.id("live"));
		assertThat(browser.findElement(By.id("live")).getText()).isEqualTo("Live: on");
		org.openqa.selenium.JavascriptExecutor script = (org.openqa.selenium.JavascriptExecutor) browser;
		script.executeScript("window.__sameDocument = true");
		this.engine.template()
			.sendAll(java.util.stream.IntStream.range(0, 4)
				.mapToObj((i) -> DelayMessage.builder("y" + i).queue(queue).delay(Duration.ofHours(1)).build())
				.toList());
		new WebDriverWait(browser, Duration.ofSeconds(15)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> driver.findElement(By.id("queue-counts")).getText().startsWith("Scheduled: 5 "));
		assertThat(script.executeScript("return window.__sameDocument")).as("no reload").isEqualTo(true);
		// paused: nothing is read again
		click(By.id("live"));
		assertThat(browser.findElement(By.id("live")).getText()).isEqualTo("Live: paused");
		this.engine.template().send(queue, "z", Duration.ofHours(1));
		try {
			Thread.sleep(7000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		assertThat(browser.findElement(By.id("queue-counts")).getText()).startsWith("Scheduled: 5 ");
		click(By.id("live"));
		new WebDriverWait(browser, Duration.ofSeconds(15)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> driver.findElement(By.id("queue-counts")).getText().startsWith("Scheduled: 6 "));
	}

	@Test
	void numbersTimesChartsAndNoticesReadAsPeopleReadThemAndDisabledLooksDisabled() {
		String queue = "dashboard-humane";
		this.engine.template()
			.sendAll(java.util.stream.IntStream.range(0, 1234)
				.mapToObj((i) -> DelayMessage.builder("m" + i)
					.queue(queue)
					.id("h-" + i)
					.delay(Duration.ofHours(1))
					.build())
				.toList());
		// a visitor who is not signed in: every write button disabled, and looking it
		browser.manage().deleteAllCookies();
		// a page load of its own: the previous test may have left this page at another
		// hash
		browser.get("about:blank");
		browser.get(url("/delayqueue/#q/" + queue));
		assertThat(visible(By.id("queue-counts")).getText()).contains("Scheduled: 1,234");
		WebElement cancel = visible(By.cssSelector("tr[data-id] td.actions button.danger"));
		assertThat(cancel.isEnabled()).isFalse();
		assertThat(cancel.getCssValue("color")).isEqualTo("rgba(91, 100, 112, 1)");
		assertThat(cancel.getCssValue("border-top-style")).isEqualTo("dashed");
		assertThat(cancel.getCssValue("cursor")).isEqualTo("not-allowed");
		// due times relative, the absolute time on hover, in the chosen zone
		WebElement due = browser.findElement(By.cssSelector("tr[data-id] td.due time"));
		assertThat(due.getText()).matches("in (59(\\.\\d)? min|60 min)");
		assertThat(due.getAttribute("title")).isNotBlank().doesNotEndWith("UTC");
		click(By.id("zone"));
		new WebDriverWait(browser, Duration.ofSeconds(10))
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("zone"), "Times: UTC"));
		new WebDriverWait(browser, Duration.ofSeconds(10)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> driver.findElement(By.cssSelector("tr[data-id] td.due time"))
				.getAttribute("title")
				.endsWith(" UTC"));
		click(By.id("zone"));
		new WebDriverWait(browser, Duration.ofSeconds(10))
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("zone"), "Times: local"));
		// charts with their axes; an idle queue's chart says so
		click(By.id("tab-history"));
		WebElement chart = visible(By.cssSelector(".charts svg"));
		assertThat(chart.findElement(By.cssSelector("text.y-min")).getText()).isEqualTo("0");
		assertThat(chart.findElement(By.cssSelector("text.idle")).getText()).isEqualTo("none in this span");
		assertThat(chart.findElement(By.cssSelector("text.x-start")).getText()).isNotBlank();
		assertThat(chart.findElement(By.cssSelector("text.x-end")).getText()).isNotBlank();
		// a failed route leaves nothing of the previous page under its error
		browser.get(url("/delayqueue/#q/bad%20name"));
		new WebDriverWait(browser, Duration.ofSeconds(10))
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "400"));
		assertThat(browser.findElement(By.id("main")).getText()).isEmpty();
		// after an action, a sentence says what changed
		signInAsTheOperator();
		browser.get("about:blank");
		browser.get(url("/delayqueue/#q/" + queue));
		visible(By.xpath("//div[@class='bar']/button[text()='Pause']"));
		click(By.xpath("//div[@class='bar']/button[text()='Pause']"));
		confirm();
		new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions
			.textToBePresentInElementLocated(By.id("notice"), "Paused " + queue + " on every instance"));
		assertThat(this.engine.admin().controls(queue).paused()).isTrue();
		visible(By.xpath("//div[@class='bar']/button[text()='Resume']"));
		click(By.xpath("//div[@class='bar']/button[text()='Resume']"));
		confirm();
		new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions
			.textToBePresentInElementLocated(By.id("notice"), "Resumed " + queue + " on every instance"));
		assertThat(this.engine.admin().controls(queue).paused()).isFalse();
	}

	@Test
	void anOperatorSeesActsAndFindsInTheBrowserAndUserDataStaysText() throws Exception {
		String queue = "dashboard-demo";
		List<String> delivered = new CopyOnWriteArrayList<>();
		AtomicBoolean failing = new AtomicBoolean(true);
		DelayQueueListenerContainer listener = this.engine
			.listenerContainer(queue, "billing", String.class, (payload, context) -> {
				if (failing.get()) {
					throw new IllegalStateException("billing is down: " + payload);
				}
				delivered.add(context.id());
			})
			.maxAttempts(1)
			.build();
		listener.start();
		try {
			this.engine.template()
				.send(DelayMessage.builder(XSS)
					.queue(queue)
					.id("doomed")
					.header("note", XSS)
					.delay(Duration.ZERO)
					.build());
			await().atMost(Duration.ofSeconds(15)).until(() -> this.engine.admin().stats(queue).dead() == 1);
			this.engine.template()
				.send(DelayMessage.builder(XSS)
					.queue(queue)
					.id(XSS)
					.header("note", XSS)
					.delay(Duration.ofHours(2))
					.build());
			for (int i = 0; i < 3; i++) {
				this.engine.template().send(queue, "later-" + i, Duration.ofHours(1));
			}

			signInAsTheOperator();

			// all queues, with their counts
			WebElement row = visible(By.cssSelector("tr[data-queue='" + queue + "'][data-group='billing']"));
			List<WebElement> cells = row.findElements(By.tagName("td"));
			assertThat(cells.get(2).getText()).isEqualTo("4");
			assertThat(cells.get(6).getText()).isEqualTo("1");
			assertThat(browser.findElement(By.id("mode")).getText()).isEqualTo("writes enabled");
			visible(By.cssSelector("tr[data-queue='order-timeout']"));

			// one queue: pause and resume
			row.findElement(By.linkText(queue)).click();
			assertThat(visible(By.id("queue-name")).getText()).isEqualTo(queue);
			click(By.xpath("//button[text()='Pause']"));
			confirm();
			new WebDriverWait(browser, Duration.ofSeconds(10))
				.until(ExpectedConditions.textToBe(By.id("queue-state"), "paused"));
			assertThat(this.engine.admin().controls(queue).paused()).isTrue();
			Files.createDirectories(Path.of("target"));
			Files.write(Path.of("target", "dashboard.png"),
					((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
			visible(By.xpath("//button[text()='Resume']")).click();
			confirm();
			new WebDriverWait(browser, Duration.ofSeconds(10))
				.until(ExpectedConditions.textToBe(By.id("queue-state"), "running"));
			assertThat(this.engine.admin().controls(queue).paused()).isFalse();

			// the scheduled message whose id, header and payload are HTML: shown as text
			WebElement xssRow = visible(By.cssSelector("td.message-id"));
			assertThat(browser.findElements(By.cssSelector("td.message-id"))).extracting(WebElement::getText)
				.contains(XSS);
			assertThat(browser.findElements(By.cssSelector("pre.payload"))).extracting(WebElement::getText)
				.contains(XSS);
			assertThat(xssRow).isNotNull();

			// find a message by id
			visible(By.id("find-id")).sendKeys(XSS);
			browser.findElement(By.id("find")).click();
			WebElement found = visible(By.cssSelector("#found td.message-id"));
			assertThat(found.getText()).isEqualTo(XSS);

			// the dead letter: its payload and headers as text, then replayed and
			// delivered
			click(By.id("tab-dead-letters"));
			WebElement dead = visible(By.cssSelector("tr[data-id='doomed']"));
			assertThat(dead.findElement(By.cssSelector("pre.payload")).getText()).isEqualTo(XSS);
			assertThat(dead.getText()).contains("note=" + XSS);
			failing.set(false);
			dead.findElement(By.xpath(".//button[text()='Replay']")).click();
			confirm();
			await().atMost(Duration.ofSeconds(15)).until(() -> delivered.contains("doomed"));
			assertThat(this.engine.admin().stats(queue).dead()).isZero();

			// a recurring schedule: shown with its payload as text, triggered, paused,
			// deleted
			this.engine.admin()
				.schedules()
				.register(DelaySchedule.builder("hourly-report", queue)
					.every(Duration.ofHours(1))
					.payload(XSS)
					.header("note", XSS)
					.build());
			click(By.id("tab-schedules"));
			WebElement schedule = visible(By.xpath("//tr[td[text()='hourly-report']]"));
			assertThat(schedule.getText()).contains("every PT1H").contains("note=" + XSS);
			assertThat(schedule.findElements(By.tagName("pre"))).extracting(WebElement::getText).contains(XSS);
			schedule.findElement(By.xpath(".//button[text()='Trigger now']")).click();
			confirm();
			await().atMost(Duration.ofSeconds(15))
				.until(() -> delivered.stream().anyMatch((id) -> id.startsWith("schedule/hourly-report/now-")));
			visible(By.xpath("//tr[td[text()='hourly-report']]//button[text()='Pause']")).click();
			confirm();
			new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions
				.textToBePresentInElementLocated(By.xpath("//tr[td[text()='hourly-report']]"), "paused"));
			assertThat(this.engine.admin().schedules().find(queue, "hourly-report").orElseThrow().paused()).isTrue();
			visible(By.xpath("//tr[td[text()='hourly-report']]//button[text()='Delete']")).click();
			confirm();
			new WebDriverWait(browser, Duration.ofSeconds(10))
				.until(ExpectedConditions.textToBePresentInElementLocated(By.id("tab-body"), "No recurring schedule"));
			assertThat(this.engine.admin().schedules().find(queue, "hourly-report")).isEmpty();

			// an invalid queue name in the address: an error, as text
			browser.get(url("/delayqueue/#q/" + URLEncoder.encode("<b>x</b>", StandardCharsets.UTF_8)));
			new WebDriverWait(browser, Duration.ofSeconds(10))
				.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "400: "));
			browser.get(url("/delayqueue/#q/" + URLEncoder.encode("<b>x", StandardCharsets.UTF_8)));
			new WebDriverWait(browser, Duration.ofSeconds(10))
				.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "may only contain"));
			assertThat(browser.findElements(By.cssSelector("#notice b"))).isEmpty();

			// nothing ran: no script of the user data, no alert
			assertThat(((org.openqa.selenium.JavascriptExecutor) browser).executeScript("return window.__xss"))
				.isNull();
			try {
				browser.switchTo().alert();
				throw new AssertionError("An alert is open");
			}
			catch (NoAlertPresentException expected) {
				// as it should be
			}
		}
		finally {
			listener.stop();
		}
	}

	@Test
	void countsOfAPausedQueueShowAndTextIsShownAsTextWithItsHiddenCharactersVisible() throws Exception {
		String queue = "dashboard-edges";
		this.engine.admin().pause(queue);
		for (int i = 0; i < 5; i++) {
			this.engine.template().send(queue, "ready-" + i, Duration.ZERO);
		}
		// a payload whose 2 KiB preview ends inside a two-byte character
		String longText = "x".repeat(2047) + "ééé" + "y";
		this.engine.template().send(queue, longText, Duration.ofHours(1));
		String spoofed = "invoice-\u202Efdp.exe";
		this.engine.template()
			.send(DelayMessage.builder("pay " + spoofed).queue(queue).id(spoofed).delay(Duration.ofHours(2)).build());

		signInAsTheOperator();

		// no group reads the queue yet: its ready messages show all the same
		WebElement row = visible(By.cssSelector("tr[data-queue='" + queue + "']"));
		assertThat(row.findElements(By.tagName("td")).get(3).getText()).isEqualTo("5");
		row.findElement(By.linkText(queue)).click();
		assertThat(visible(By.id("queue-counts")).getText()).contains("ready: 5");
		assertThat(browser.findElement(By.xpath("//tr[td[text()='(no consumer group yet)']]")).getText()).contains("5");

		// a listener deployed on the paused queue: its group and consumer show at once
		DelayQueueListenerContainer listener = this.engine
			.listenerContainer(queue, "late", String.class, (payload, context) -> {
			})
			.build();
		listener.start();
		try {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.engine.admin().stats(queue).groups().stream().anyMatch((g) -> g.consumers() > 0));
			browser.get(url("/delayqueue/"));
			WebElement late = visible(By.cssSelector("tr[data-queue='" + queue + "'][data-group='late']"));
			List<WebElement> cells = late.findElements(By.tagName("td"));
			assertThat(cells.get(3).getText()).as("ready").isEqualTo("5");
			assertThat(cells.get(7).getText()).as("consumers").isEqualTo("1");
			assertThat(late.getText()).doesNotContain("no consumer");

			// the long payload: text, cut on a character boundary
			late.findElement(By.linkText(queue)).click();
			visible(By.id("queue-name"));
			String shown = visible(By.xpath("//pre[contains(@class,'payload') and starts-with(text(),'xxx')]"))
				.getText();
			assertThat(shown).isEqualTo("x".repeat(2047) + "... (2054 bytes)");

			// the id with a right-to-left override: its code point shows, in the table,
			// the search result and the confirm dialog
			String escaped = "invoice-\u27e6U+202E\u27e7fdp.exe";
			assertThat(browser.findElements(By.cssSelector("td.message-id"))).extracting(WebElement::getText)
				.contains(escaped);
			visible(By.id("find-id")).sendKeys(spoofed);
			browser.findElement(By.id("find")).click();
			WebElement found = visible(By.cssSelector("#found td.message-id"));
			assertThat(found.getText()).isEqualTo(escaped);
			found.findElement(By.xpath("..//button[text()='Cancel']")).click();
			org.openqa.selenium.Alert dialog = new WebDriverWait(browser, Duration.ofSeconds(5))
				.until(ExpectedConditions.alertIsPresent());
			assertThat(dialog.getText()).isEqualTo("Cancel " + escaped + "?");
			dialog.dismiss();
			assertThat(this.engine.admin().scheduledMessage(queue, spoofed)).as("not cancelled").isPresent();
		}
		finally {
			listener.stop();
			this.engine.admin().resume(queue);
		}
	}

	@Test
	void everyAnswerCarriesTheContentSecurityPolicyAndGroupActionsNameTheGroupsOfTheQueue() throws Exception {
		String queue = "dashboard-groups";
		DelayQueueListenerContainer listener = this.engine
			.listenerContainer(queue, "billing", String.class, (payload, context) -> {
			})
			.build();
		listener.start();
		try {
			HttpClient operator = signedIn("ops", "ops-demo");
			String token = csrfToken(operator);
			String base = "/delayqueue/api/queues/" + queue;
			HttpResponse<String> typo = post(operator, base + "/pause?group=biling", token);
			assertThat(typo.statusCode()).isEqualTo(400);
			assertThat(typo.body()).contains("has no consumer group 'biling'; its groups: billing");
			assertThat(this.engine.admin().controls(queue).pausedGroups()).as("nothing stored").isEmpty();
			HttpResponse<String> badName = post(operator,
					base + "/dead-letters/replay-all?group=" + URLEncoder.encode("bad name!", StandardCharsets.UTF_8),
					token);
			assertThat(badName.statusCode()).isEqualTo(400);
			assertThat(badName.body()).contains("Group name 'bad name!'");
			assertThat(post(operator, base + "/dead-letters/replay-all?group=nobody", token).statusCode())
				.isEqualTo(400);
			assertThat(post(operator, base + "/rate-limit?group=nobody&rateLimit=5/1s", token).statusCode())
				.isEqualTo(400);
			assertThat(post(operator, base + "/pause?group=billing", token).statusCode()).isEqualTo(200);
			assertThat(post(operator, base + "/resume?group=billing", token).statusCode()).isEqualTo(200);

			// the page, a JSON answer, an error, a redirect and a refusal all carry the
			// policy
			HttpClient anonymous = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
			List<HttpResponse<String>> answers = List.of(get(anonymous, "/delayqueue/"),
					get(anonymous, "/delayqueue/api/queues"), get(anonymous, "/delayqueue/api/queues/no-such-queue"),
					get(anonymous, "/delayqueue"), post(operator, base + "/pause", null), typo);
			assertThat(answers).extracting(HttpResponse::statusCode).containsExactly(200, 200, 404, 302, 403, 400);
			assertThat(answers).allSatisfy((answer) -> {
				assertThat(answer.headers().firstValue("Content-Security-Policy")).as(answer.uri().toString())
					.hasValueSatisfying((policy) -> assertThat(policy).contains("script-src 'self'")
						.contains("frame-ancestors 'self'"));
				assertThat(answer.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
			});
		}
		finally {
			listener.stop();
		}
	}

	@Test
	void theOverviewSaysWhatNeedsTheOperatorWithTotalsAndSparklines() {
		this.engine.template().send("dashboard-overview-paused", "x", Duration.ofHours(1));
		this.engine.admin().pause("dashboard-overview-paused");
		this.engine.template().send("dashboard-overview-unread", "x", Duration.ZERO);
		try {
			browser.get("about:blank");
			browser.get(url("/delayqueue/#"));
			String attention = visible(By.id("attention")).getText();
			assertThat(attention).contains("dashboard-overview-paused: paused on every instance")
				.contains("dashboard-overview-unread: no consumer group reads it yet (1 ready)");
			assertThat(browser.findElement(By.id("totals")).getText()).contains("Scheduled", "Dead letters");
			WebElement row = browser.findElement(By.cssSelector("tr[data-queue='dashboard-overview-paused']"));
			assertThat(row.findElements(By.cssSelector("svg.spark"))).hasSize(2);
			assertThat(row.findElement(By.cssSelector("svg.spark")).getAttribute("aria-label"))
				.isEqualTo("Acked per minute of dashboard-overview-paused: none in the last hour");
		}
		finally {
			this.engine.admin().resume("dashboard-overview-paused");
		}
	}

	@Test
	void theSlotsOfAConcurrencyLimitShowAndTheLimitIsChangedFromTheQueuePage() throws Exception {
		java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
		io.github.delayqueue.core.listener.DelayQueueListenerContainer container = this.engine
			.listenerContainer("dashboard-concurrency", "workers", String.class, (payload, context) -> release.await())
			.concurrency(3)
			.build();
		this.engine.admin().limitConcurrency("dashboard-concurrency", 2);
		container.start();
		try {
			for (int i = 0; i < 3; i++) {
				this.engine.template().send("dashboard-concurrency", "job-" + i, Duration.ZERO);
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.engine.admin().concurrencySlotsTaken("dashboard-concurrency", "workers") == 2);
			signInAsTheOperator();
			browser.get("about:blank");
			browser.get(url("/delayqueue/#"));
			assertThat(visible(By.id("attention")).getText())
				.contains("dashboard-concurrency: at most 2 running at once");
			WebElement row = browser.findElement(By.cssSelector("tr[data-queue='dashboard-concurrency']"));
			assertThat(row.findElement(By.cssSelector("td.slots")).getText()).isEqualTo("2 / 2");
			browser.get(url("/delayqueue/#q/dashboard-concurrency"));
			assertThat(visible(By.id("concurrency-limit")).getText()).isEqualTo("Concurrency limit: 2");
			click(By.xpath("//button[text()='Change concurrency limit']"));
			Alert prompt = new WebDriverWait(browser, Duration.ofSeconds(5)).until(ExpectedConditions.alertIsPresent());
			prompt.sendKeys("5");
			prompt.accept();
			new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions
				.textToBePresentInElementLocated(By.id("concurrency-limit"), "Concurrency limit: 5"));
			// the third message starts once the limit is raised
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.engine.admin().concurrencySlotsTaken("dashboard-concurrency", "workers") == 3);
		}
		finally {
			release.countDown();
			container.stop();
			this.engine.admin().removeConcurrencyLimit("dashboard-concurrency");
		}
	}

	@Test
	void theOverviewShowsTheOutboxRowsWaitingAndTheRelaysLag() {
		// a row of a minute ago that waits for its retry: the relay leaves it
		this.jdbc.update("INSERT INTO delayqueue_outbox (queue_name, message_id, message_key, envelope, due_at, "
				+ "send_mode, created_at, retry_at) VALUES ('dashboard-outbox', 'waiting', NULL, ?, 0, '0', ?, ?)",
				new byte[] { 1 }, System.currentTimeMillis() - 60_000, Long.MAX_VALUE);
		try {
			browser.get("about:blank");
			browser.get(url("/delayqueue/#"));
			String outbox = visible(By.id("outbox")).getText();
			assertThat(outbox).contains("Outbox", "Rows waiting\n1", "Relay\nrelaying")
				.containsPattern("Oldest \\(relay lag\\)\n1(\\.\\d)? min")
				.containsPattern("The relay is 1(\\.\\d)? min behind the writers");
		}
		finally {
			this.jdbc.update("DELETE FROM delayqueue_outbox WHERE message_id = 'waiting'");
		}
	}

	/**
	 * A dead letter shows on the overview as soon as it is there: counted in the
	 * dead-letter stream, not in the history (which an engine adds to about every 10 s).
	 * The listener here runs on an engine that records no history, so the history never
	 * has it.
	 */
	@Test
	void aDeadLetterShowsOnTheOverviewAtOnceNotAfterTheHistoryFlush(
			@Autowired org.springframework.data.redis.connection.RedisConnectionFactory connections) {
		String queue = "dashboard-dead-at-once";
		try (DelayQueueEngine quiet = DelayQueueEngine.builder(connections)
			.keyPrefix(this.engine.keyPrefix())
			.history(false)
			.build()) {
			DelayQueueListenerContainer listener = quiet
				.listenerContainer(queue, "billing", String.class, (payload, context) -> {
					throw new IllegalStateException("card declined");
				})
				.maxAttempts(1)
				.build();
			listener.start();
			try {
				quiet.template().send(queue, "x", Duration.ZERO);
				await().atMost(Duration.ofSeconds(20)).until(() -> this.engine.admin().stats(queue).dead() == 1);
				assertThat(this.engine.admin()
					.history(queue, io.github.delayqueue.core.QueueHistory.Span.HOUR)
					.total()
					.dead()).as("the history has no dead letter").isZero();
				browser.get("about:blank");
				browser.get(url("/delayqueue/#"));
				String attention = visible(By.id("attention")).getText();
				assertThat(attention).contains(queue + ": 1 dead letter in the last 5 min, the newest ");
				assertThat(browser.findElement(By.id("totals")).getText()).contains("Dead letters");
			}
			finally {
				listener.stop();
				this.engine.admin().purgeDeadLetters(queue);
			}
		}
	}

	/**
	 * Where a replayed dead letter lands (docs/dead-letters.md): its own group's retry
	 * schedule, due at once, counted under "Retrying" until its group reads it, as
	 * attempt 1; another group that handled the message does not see it again.
	 */
	@Test
	void aReplayedDeadLetterWaitsUnderRetryingForItsGroupAloneAndComesAsAttemptOne() throws Exception {
		String queue = "dashboard-replay";
		List<String> audited = new CopyOnWriteArrayList<>();
		List<Integer> billed = new CopyOnWriteArrayList<>();
		AtomicBoolean failing = new AtomicBoolean(true);
		DelayQueueListenerContainer audit = this.engine
			.listenerContainer(queue, "audit", String.class, (payload, context) -> audited.add(payload))
			.build();
		java.util.function.Supplier<DelayQueueListenerContainer> billing = () -> this.engine
			.listenerContainer(queue, "billing", String.class, (payload, context) -> {
				if (failing.get()) {
					throw new IllegalStateException("card declined");
				}
				billed.add(context.attempt());
			})
			.maxAttempts(1)
			.build();
		DelayQueueListenerContainer first = billing.get();
		audit.start();
		first.start();
		DelayQueueListenerContainer second = null;
		try {
			this.engine.template().send(DelayMessage.builder("r").queue(queue).id("replay-1").build());
			await().atMost(Duration.ofSeconds(20))
				.until(() -> this.engine.admin().stats(queue).dead() == 1 && audited.size() == 1);
			first.stop();
			failing.set(false);
			signInAsTheOperator();
			browser.get("about:blank");
			browser.get(url("/delayqueue/#q/" + queue));
			click(By.id("tab-dead-letters"));
			visible(By.cssSelector("tr[data-id='replay-1']"));
			click(By.xpath("//tr[@data-id='replay-1']//button[text()='Replay']"));
			confirm();
			new WebDriverWait(browser, Duration.ofSeconds(10))
				.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Replayed replay-1"));
			// not in the schedule, not ready for every group: in billing's retry schedule
			io.github.delayqueue.core.QueueStats stats = this.engine.admin().stats(queue);
			assertThat(stats.dead()).isZero();
			assertThat(stats.scheduled()).isZero();
			assertThat(stats.groups()).filteredOn((g) -> g.group().equals("billing")).singleElement().satisfies((g) -> {
				assertThat(g.retryScheduled()).as("retrying").isEqualTo(1);
				assertThat(g.lag()).as("ready").isZero();
			});
			assertThat(stats.groups()).filteredOn((g) -> g.group().equals("audit"))
				.singleElement()
				.satisfies((g) -> assertThat(g.retryScheduled() + g.lag() + g.pending()).isZero());
			browser.get("about:blank");
			browser.get(url("/delayqueue/#"));
			List<WebElement> cells = visible(By.cssSelector("tr[data-queue='" + queue + "'][data-group='billing']"))
				.findElements(By.tagName("td"));
			assertThat(cells.get(5).getText()).as("Retrying").isEqualTo("1");
			second = billing.get();
			second.start();
			await().atMost(Duration.ofSeconds(20)).until(() -> billed.size() == 1);
			assertThat(billed).containsExactly(1);
			Thread.sleep(500);
			assertThat(audited).as("the other group does not see it again").hasSize(1);
		}
		finally {
			audit.stop();
			first.stop();
			if (second != null) {
				second.stop();
			}
		}
	}

	/**
	 * A message that is no longer scheduled: the page says, per group, where it went and
	 * when (dead-lettered, retrying, handled, in flight), and that Redis shows nothing of
	 * a cancelled one.
	 */
	@Test
	void aMessageNoLongerScheduledSaysPerGroupWhereItWentAndWhen() throws Exception {
		String queue = "dashboard-trace";
		java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
		List<String> audited = new CopyOnWriteArrayList<>();
		DelayQueueListenerContainer audit = this.engine
			.listenerContainer(queue, "audit", String.class, (payload, context) -> {
				if ("hold".equals(payload)) {
					release.await();
				}
				audited.add(payload);
			})
			.concurrency(4)
			.trimInterval(Duration.ofHours(1))
			.build();
		DelayQueueListenerContainer billing = this.engine
			.listenerContainer(queue, "billing", String.class, (payload, context) -> {
				if ("dead".equals(payload)) {
					throw new IllegalArgumentException("card declined");
				}
				if ("retry".equals(payload)) {
					throw new IllegalStateException("partner timed out");
				}
			})
			.maxAttempts(3)
			.initialBackoff(Duration.ofHours(1))
			.maxBackoff(Duration.ofHours(1))
			.jitter(0)
			.nonRetryable(List.of(IllegalArgumentException.class))
			.trimInterval(Duration.ofHours(1))
			.build();
		audit.start();
		billing.start();
		try {
			for (String payload : List.of("dead", "retry", "hold")) {
				this.engine.template().send(DelayMessage.builder(payload).queue(queue).id("t-" + payload).build());
			}
			this.engine.template()
				.send(DelayMessage.builder("x").queue(queue).id("t-cancel").delay(Duration.ofHours(1)).build());
			assertThat(this.engine.template().cancel(queue, "t-cancel")).isTrue();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> this.engine.admin().stats(queue).dead() == 1 && audited.size() == 2
						&& this.engine.admin()
							.stats(queue)
							.groups()
							.stream()
							.anyMatch((g) -> g.group().equals("billing") && g.retryScheduled() == 1));
			browser.get("about:blank");
			browser.get(url("/delayqueue/#q/" + queue + "/m/t-dead"));
			assertThat(visible(By.cssSelector("li.trace[data-group='billing']")).getText())
				.startsWith("Dead-lettered in group billing ")
				.contains(", after 1 attempt (IllegalArgumentException: card declined)");
			assertThat(browser.findElement(By.cssSelector("li.trace[data-group='audit']")).getText())
				.startsWith("Handled by group audit: delivered and acknowledged; it became due ");
			click(By.cssSelector("a.dead-link"));
			visible(By.cssSelector("#tab-dead-letters[aria-pressed='true']"));
			visible(By.cssSelector("tr[data-id='t-dead']"));

			browser.get("about:blank");
			browser.get(url("/delayqueue/#q/" + queue + "/m/t-retry"));
			assertThat(visible(By.cssSelector("li.trace[data-group='billing']")).getText())
				.matches("Retrying in group billing: attempt 2 due in (59(\\.\\d)? min|60 min|1 h) "
						+ "\\(IllegalStateException: partner timed out\\)");
			assertThat(browser.findElement(By.cssSelector("li.trace[data-group='audit']")).getAttribute("data-state"))
				.isEqualTo("HANDLED");

			browser.get("about:blank");
			browser.get(url("/delayqueue/#q/" + queue + "/m/t-hold"));
			assertThat(visible(By.cssSelector("li.trace[data-group='audit']")).getText())
				.startsWith("In flight in group audit: held by ")
				.contains(", delivery 1; due since ");
			assertThat(browser.findElement(By.cssSelector("li.trace[data-group='billing']")).getAttribute("data-state"))
				.isEqualTo("HANDLED");

			// "Find message" of one that is not scheduled: its page
			browser.get("about:blank");
			browser.get(url("/delayqueue/#q/" + queue));
			visible(By.id("find-id")).sendKeys("t-dead");
			click(By.id("find"));
			assertThat(visible(By.cssSelector("li.trace[data-group='billing']")).getAttribute("data-state"))
				.isEqualTo("DEAD");
			assertThat(browser.getCurrentUrl()).endsWith("#q/" + queue + "/m/t-dead");

			browser.get("about:blank");
			browser.get(url("/delayqueue/#q/" + queue + "/m/t-cancel"));
			assertThat(visible(By.id("detail-state")).getText())
				.startsWith("Not scheduled, and Redis shows nothing else of it")
				.contains("cancelled, never sent, or handled more than about 30 s ago");
		}
		finally {
			release.countDown();
			audit.stop();
			billing.stop();
		}
	}

	@Test
	void pagesShowTheirPositionGoBackAndForthChangeSizeAndJumpToADueTime() {
		String queue = "dashboard-paging";
		java.time.Instant base = java.time.Instant.now()
			.plus(Duration.ofHours(2))
			.truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
		this.engine.template()
			.sendAll(java.util.stream.IntStream.range(0, 130)
				.mapToObj((i) -> DelayMessage.builder("m" + i)
					.queue(queue)
					.id(String.format("p-%03d", i))
					.deliverAt(base.plusSeconds(i))
					.build())
				.toList());
		browser.get("about:blank");
		browser.get(url("/delayqueue/#q/" + queue));
		assertThat(visible(By.id("page-position")).getText()).isEqualTo("1\u201350 of 130");
		assertThat(browser.findElement(By.id("page-previous")).isEnabled()).isFalse();
		click(By.id("page-next"));
		waitForPosition("51\u2013100 of 130");
		assertThat(browser.findElement(By.cssSelector("tr[data-id]")).getAttribute("data-id")).isEqualTo("p-050");
		click(By.id("page-next"));
		waitForPosition("101\u2013130 of 130");
		assertThat(browser.findElement(By.id("page-next")).isEnabled()).isFalse();
		click(By.id("page-previous"));
		waitForPosition("51\u2013100 of 130");
		new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("page-size"))).selectByValue("20");
		waitForPosition("1\u201320 of 130");
		// jump to the first message due at or after the 100th second
		String local = java.time.LocalDateTime.ofInstant(base.plusSeconds(100), java.time.ZoneId.systemDefault())
			.toString();
		((org.openqa.selenium.JavascriptExecutor) browser)
			.executeScript("document.getElementById('jump-time').value = arguments[0]", local);
		click(By.id("jump"));
		waitForPosition("101\u2013120 of 130");
		assertThat(browser.findElement(By.cssSelector("tr[data-id]")).getAttribute("data-id")).isEqualTo("p-100");
	}

	private static void waitForPosition(String position) {
		new WebDriverWait(browser, Duration.ofSeconds(10)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> driver.findElement(By.id("page-position")).getText().equals(position));
	}

	@Test
	void thirtySelectedMessagesAreCancelledInOneActionAuditedWithTheUsersName(
			org.springframework.boot.test.system.CapturedOutput output) {
		String queue = "dashboard-bulk";
		this.engine.template()
			.sendAll(java.util.stream.IntStream.range(0, 40)
				.mapToObj((i) -> DelayMessage.builder("m" + i)
					.queue(queue)
					.id(String.format("b-%02d", i))
					.delay(Duration.ofHours(1).plusSeconds(i))
					.build())
				.toList());
		signInAsTheOperator();
		browser.get("about:blank");
		browser.get(url("/delayqueue/#q/" + queue));
		visible(By.cssSelector("tr[data-id='b-00'] input.select"));
		for (int i = 0; i < 30; i++) {
			browser.findElement(By.cssSelector("tr[data-id='" + String.format("b-%02d", i) + "'] input.select"))
				.click();
		}
		assertThat(browser.findElement(By.id("bulk-count")).getText()).isEqualTo("30 selected");
		click(By.xpath("//div[contains(@class,'bulk')]/button[text()='Cancel selected']"));
		Alert alert = new WebDriverWait(browser, Duration.ofSeconds(5)).until(ExpectedConditions.alertIsPresent());
		assertThat(alert.getText()).startsWith("Cancel 30 selected messages?");
		alert.accept();
		new WebDriverWait(browser, Duration.ofSeconds(10))
			.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Cancelled 30 of 30"));
		for (int i = 0; i < 40; i++) {
			assertThat(this.engine.admin().scheduledMessage(queue, String.format("b-%02d", i)).isPresent())
				.as("b-%02d", i)
				.isEqualTo(i >= 30);
		}
		assertThat(output.getAll())
			.contains("Dashboard user 'ops', queue '" + queue + "': cancelled 30 of 30 selected messages");
	}

	@Test
	void deadLettersAreGroupedByErrorAndOneErrorIsReplayedAsOne() throws Exception {
		String queue = "dashboard-errors";
		AtomicBoolean failing = new AtomicBoolean(true);
		List<String> delivered = new CopyOnWriteArrayList<>();
		DelayQueueListenerContainer listener = this.engine
			.listenerContainer(queue, "billing", String.class, (payload, context) -> {
				if (failing.get() && payload.equals("partner-1") && context.snoozes() < 2) {
					throw new io.github.delayqueue.core.listener.SnoozeException(Duration.ofMillis(50));
				}
				if (failing.get()) {
					throw new IllegalStateException(payload.startsWith("card")
							? "card declined for order " + payload.substring(5) : "partner timed out after 30 s");
				}
				delivered.add(payload);
			})
			.maxAttempts(1)
			.build();
		listener.start();
		try {
			for (int i = 0; i < 6; i++) {
				this.engine.template().send(queue, "card-" + i, Duration.ZERO);
			}
			this.engine.template().send(queue, "partner-1", Duration.ZERO);
			this.engine.template().send(queue, "partner-2", Duration.ZERO);
			await().atMost(Duration.ofSeconds(20)).until(() -> this.engine.admin().stats(queue).dead() == 8);
			failing.set(false);
			signInAsTheOperator();
			browser.get("about:blank");
			browser.get(url("/delayqueue/#q/" + queue));
			click(By.id("tab-dead-letters"));
			WebElement cards = visible(By.xpath("//section[@id='errors']//tr[td[text()='card declined for order ']]"));
			assertThat(cards.getText()).contains("java.lang.IllegalStateException").contains(" 6 ");
			assertThat(browser.findElement(By.id("errors")).getText()).contains("partner timed out after ");
			// a dead letter that snoozed says so beside its attempts
			// (docs/dead-letters.md)
			assertThat(visible(By.xpath("//tr[@data-id][td[@class='message-id']]//td[contains(@class,'attempts')]"
					+ "[contains(text(),'snoozed')]"))
				.getText()).isEqualTo("1 (+2 snoozed)");
			Files.createDirectories(Path.of("target", "screenshots"));
			Files.write(Path.of("target", "screenshots", "dead-letters.png"),
					((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
			click(By.xpath(
					"//section[@id='errors']//tr[td[text()='card declined for order ']]//button[text()='Replay these']"));
			confirm();
			new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions
				.textToBePresentInElementLocated(By.id("notice"), "Replayed 6 dead letters of IllegalStateException"));
			await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() == 6);
			assertThat(delivered).allMatch((payload) -> payload.startsWith("card-"));
			assertThat(this.engine.admin().stats(queue).dead()).isEqualTo(2);
			// the two left, selected on the page and deleted in one action
			browser.get("about:blank");
			browser.get(url("/delayqueue/#q/" + queue));
			click(By.id("tab-dead-letters"));
			click(By.id("select-all"));
			assertThat(browser.findElement(By.id("bulk-count")).getText()).isEqualTo("2 selected");
			click(By.xpath("//div[contains(@class,'bulk')]/button[text()='Delete selected']"));
			confirm();
			new WebDriverWait(browser, Duration.ofSeconds(10))
				.until(ExpectedConditions.textToBePresentInElementLocated(By.id("notice"), "Deleted 2 of 2"));
			assertThat(this.engine.admin().stats(queue).dead()).isZero();
		}
		finally {
			listener.stop();
		}
	}

	@Test
	void aPauseAndAResumeAreDoneWithTheKeyboardAlone() {
		String queue = "dashboard-keyboard";
		this.engine.template().send(queue, "x", Duration.ofHours(1));
		signInAsTheOperator();
		browser.get("about:blank");
		browser.get(url("/delayqueue/#q/" + queue));
		visible(By.id("queue-state"));
		pressTabUntil("Pause");
		browser.switchTo().activeElement().sendKeys(org.openqa.selenium.Keys.ENTER);
		confirm();
		new WebDriverWait(browser, Duration.ofSeconds(10))
			.until(ExpectedConditions.textToBe(By.id("queue-state"), "paused"));
		assertThat(this.engine.admin().controls(queue).paused()).isTrue();
		pressTabUntil("Resume");
		browser.switchTo().activeElement().sendKeys(org.openqa.selenium.Keys.SPACE);
		confirm();
		new WebDriverWait(browser, Duration.ofSeconds(10))
			.until(ExpectedConditions.textToBe(By.id("queue-state"), "running"));
		assertThat(this.engine.admin().controls(queue).paused()).isFalse();
	}

	/** Moves the focus with the Tab key alone until it is on a button with this text. */
	private static void pressTabUntil(String text) {
		for (int i = 0; i < 40; i++) {
			new org.openqa.selenium.interactions.Actions(browser).sendKeys(org.openqa.selenium.Keys.TAB).perform();
			WebElement focused = browser.switchTo().activeElement();
			if ("button".equals(focused.getTagName()) && text.equals(focused.getText())) {
				return;
			}
		}
		throw new AssertionError("Tab never reached a button '" + text + "'");
	}

	@Test
	void everyPageHasNoSeriousAccessibilityViolationAndItsScreenshotIsTaken() throws Exception {
		String queue = "dashboard-a11y";
		this.engine.template()
			.send(DelayMessage.builder(java.util.Map.of("order", 7, "customer", "c-9"))
				.queue(queue)
				.id("order-7")
				.header("tenant", "acme")
				.delay(Duration.ofMinutes(30))
				.expireAfter(Duration.ofHours(1))
				.build());
		// what makes a region scroll: a 10 KiB payload (its 2 KiB preview), many headers,
		// a stack trace, in the schedule, the dead letters, a recurring schedule and the
		// message view
		String big = "{\"lines\":\"" + "0123456789abcdef ".repeat(600) + "\"}";
		DelayMessage.Builder<String> long7 = DelayMessage.builder(big)
			.queue(queue)
			.id("long-7")
			.delay(Duration.ofMinutes(40));
		for (int i = 0; i < 30; i++) {
			long7.header("header-" + i, "value " + i + " " + "v".repeat(60));
		}
		this.engine.template().send(long7.build());
		this.engine.admin()
			.schedules()
			.register(DelaySchedule.builder("long-report", queue).every(Duration.ofHours(1)).payload(big).build());
		java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
		DelayQueueListenerContainer listener = this.engine
			.listenerContainer(queue, "billing", String.class, (payload, context) -> {
				if ("hold".equals(payload)) {
					held.countDown();
					release.await();
					return;
				}
				throw new IllegalStateException("card declined: " + payload.substring(0, 20));
			})
			.maxAttempts(1)
			.build();
		listener.start();
		try {
			this.engine.template()
				.send(DelayMessage.builder(big).queue(queue).id("dead-7").delay(Duration.ZERO).build());
			await().atMost(Duration.ofSeconds(20)).until(() -> this.engine.admin().stats(queue).dead() == 1);
			this.engine.template().send(queue, "hold", Duration.ZERO);
			assertThat(held.await(20, java.util.concurrent.TimeUnit.SECONDS)).as("a message in flight").isTrue();
			signInAsTheOperator();
			Path shots = Path.of("target", "screenshots");
			Files.createDirectories(shots);
			for (String scheme : List.of("light", "dark")) {
				colorScheme(scheme);
				List<String> pages = List.of("#", "#q/" + queue, "#q/" + queue + "/m/order-7",
						"#q/" + queue + "/m/long-7", "#q/" + queue + "/m/dead-7");
				List<String> names = List.of("overview", "queue", "message", "long-message", "message-trace");
				for (int i = 0; i < pages.size(); i++) {
					browser.get("about:blank");
					browser.get(url("/delayqueue/" + pages.get(i)));
					visible(By.cssSelector("main h2"));
					assertNoSeriousViolations(scheme + " " + pages.get(i));
					if ("light".equals(scheme)) {
						Files.write(shots.resolve(names.get(i) + ".png"),
								((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
					}
				}
				browser.get("about:blank");
				browser.get(url("/delayqueue/#q/" + queue));
				visible(By.cssSelector("tr[data-id='long-7'] pre.payload"));
				assertThat(scrollables()).as("the schedule's long payload and headers scroll")
					.contains("tr[data-id='long-7'] pre", "tr[data-id='long-7'] pre.payload");
				for (String tab : List.of("in-flight", "dead-letters", "schedules", "history")) {
					click(By.id("tab-" + tab));
					visible(By.cssSelector("#tab-" + tab + "[aria-pressed='true']"));
					visible(By.cssSelector("#tab-body > *"));
					if ("dead-letters".equals(tab)) {
						// the stack trace, opened
						click(By.cssSelector("tr[data-id='dead-7'] details summary"));
						visible(By.cssSelector("tr[data-id='dead-7'] details pre"));
						assertThat(scrollables()).as("the dead letter's payload and stack trace scroll")
							.contains("tr[data-id='dead-7'] pre.payload", "tr[data-id='dead-7'] details pre.stack");
					}
					if ("schedules".equals(tab)) {
						visible(By.xpath("//tr[td[text()='long-report']]"));
						assertThat(scrollables()).as("the schedule's payload scrolls").isNotEmpty();
					}
					assertNoSeriousViolations(scheme + " " + queue + " " + tab);
				}
				assertThat(browser.findElement(By.id("tab-body")).getText()).isNotBlank();
				// each scrolling region is reached with the keyboard and says what it
				// holds
				browser.get("about:blank");
				browser.get(url("/delayqueue/#q/" + queue + "/m/long-7"));
				visible(By.id("detail-payload"));
				Object unnamed = ((org.openqa.selenium.JavascriptExecutor) browser)
					.executeScript("return Array.from(document.querySelectorAll('main *')).filter(function (e) {"
							+ " return e.scrollHeight > e.clientHeight + 1 && /auto|scroll/.test(getComputedStyle(e).overflowY)"
							+ " && (e.tabIndex < 0 || !e.getAttribute('aria-label')); }).length");
				assertThat(unnamed).as("scrolling regions without a tab stop or a name").isEqualTo(0L);
			}
		}
		finally {
			release.countDown();
			listener.stop();
			colorScheme("light");
			this.engine.admin().schedules().delete(queue, "long-report");
		}
		browser.get("about:blank");
		browser.get(url("/delayqueue/#q/" + queue + "/m/order-7"));
		assertThat(visible(By.id("detail-expires")).getText()).startsWith("in ");
		assertThat(browser.findElement(By.id("detail-attempts")).getText()).startsWith("0 so far");
		assertThat(browser.findElement(By.id("detail-state")).getText()).startsWith("Scheduled: due in ");
		// a binary payload, in hex
		this.engine.template()
			.send(DelayMessage.builder(new byte[] { (byte) 0xff, 0x00, 'h', 'i', (byte) 0x80 })
				.queue(queue)
				.id("binary-1")
				.delay(Duration.ofMinutes(30))
				.build());
		browser.get("about:blank");
		browser.get(url("/delayqueue/#q/" + queue + "/m/binary-1"));
		assertThat(visible(By.id("detail-payload")).getText()).startsWith("0000  ff 00 68 69 80").endsWith("|..hi.|");
	}

	/** The page in the system's light or dark colours ({@code prefers-color-scheme}). */
	private static void colorScheme(String scheme) {
		((org.openqa.selenium.chromium.HasCdp) browser).executeCdpCommand("Emulation.setEmulatedMedia", java.util.Map
			.of("features", List.of(java.util.Map.of("name", "prefers-color-scheme", "value", scheme))));
	}

	/** A selector of each element of the page that scrolls (its content overflows it). */
	@SuppressWarnings("unchecked")
	private static List<String> scrollables() {
		return (List<String>) ((org.openqa.selenium.JavascriptExecutor) browser)
			.executeScript("return Array.from(document.querySelectorAll('main *')).filter(function (e) {"
					+ " return e.scrollHeight > e.clientHeight + 1 && /auto|scroll/.test(getComputedStyle(e).overflowY); })"
					+ ".map(function (e) { var row = e.closest('tr[data-id]');"
					+ " return (row ? \"tr[data-id='\" + row.getAttribute('data-id') + \"'] \" : '')"
					+ " + (e.closest('details') ? 'details ' : '') + e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''); })");
	}

	private static void assertNoSeriousViolations(String page) {
		com.deque.html.axecore.results.Results results = new com.deque.html.axecore.selenium.AxeBuilder()
			.analyze(browser);
		// axe ran its rules on the page: some passed
		assertThat(results.getPasses()).as("rules axe passed on %s", page).isNotEmpty();
		List<String> serious = results.getViolations()
			.stream()
			.filter((rule) -> "serious".equals(rule.getImpact()) || "critical".equals(rule.getImpact()))
			.map((rule) -> rule.getId() + ": " + rule.getHelp() + " "
					+ rule.getNodes().stream().map((node) -> String.valueOf(node.getTarget())).limit(3).toList())
			.toList();
		assertThat(serious).as("serious accessibility violations on %s", page).isEmpty();
	}

	@Test
	void writesWithoutCsrfTokenOrWithoutTheAuthorityAreRefusedOnTheServer() throws Exception {
		String queue = "dashboard-refusals";
		this.engine.template().send(queue, "x", Duration.ofHours(1));
		String pause = "/delayqueue/api/queues/" + queue + "/pause";

		// the operator, signed in, without the CSRF token: refused by Spring Security
		HttpClient operator = signedIn("ops", "ops-demo");
		assertThat(post(operator, pause, null).statusCode()).isEqualTo(403);
		// with it: done
		String token = csrfToken(operator);
		assertThat(post(operator, pause, token).statusCode()).isEqualTo(200);
		assertThat(this.engine.admin().controls(queue).paused()).isTrue();

		// a viewer, signed in, with the CSRF token, lacks the authority: refused by the
		// dashboard, whatever the page shows
		HttpClient viewer = signedIn("viewer", "viewer-demo");
		HttpResponse<String> refused = post(viewer, "/delayqueue/api/queues/" + queue + "/resume", csrfToken(viewer));
		assertThat(refused.statusCode()).isEqualTo(403);
		// the concurrency limit, a write of its own controller: the same checks
		String limit = "/delayqueue/api/queues/" + queue + "/concurrency-limit?concurrencyLimit=1";
		assertThat(post(operator, limit, null).statusCode()).isEqualTo(403);
		assertThat(post(viewer, limit, csrfToken(viewer)).statusCode()).isEqualTo(403);
		// bad input is a clear 400, not a server error
		assertThat(post(operator, "/delayqueue/api/queues/" + queue + "/concurrency-limit?concurrencyLimit=0", token)
			.statusCode()).isEqualTo(400);
		assertThat(this.engine.admin().controls(queue).concurrencyLimit()).isNull();
		assertThat(refused.body()).contains("lacks the authority 'ROLE_OPS_ADMIN'");
		assertThat(this.engine.admin().controls(queue).paused()).isTrue();

		// nobody signed in: refused
		HttpClient anonymous = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
		String anonymousToken = csrfToken(anonymous);
		HttpResponse<String> anonymousWrite = post(anonymous, "/delayqueue/api/queues/" + queue + "/resume",
				anonymousToken);
		assertThat(anonymousWrite.statusCode()).isEqualTo(403);
		assertThat(anonymousWrite.body()).contains("signed-in user");
		assertThat(this.engine.admin().controls(queue).paused()).isTrue();

		// a schedule's delete, refused alike: without the token, without the authority,
		// signed out
		this.engine.admin()
			.schedules()
			.register(DelaySchedule.builder("kept", queue).every(Duration.ofHours(1)).payload("x").build());
		String delete = "/delayqueue/api/queues/" + queue + "/schedules/kept/delete";
		assertThat(post(operator, delete, null).statusCode()).isEqualTo(403);
		assertThat(post(viewer, delete, csrfToken(viewer)).statusCode()).isEqualTo(403);
		assertThat(post(anonymous, delete, csrfToken(anonymous)).statusCode()).isEqualTo(403);
		assertThat(this.engine.admin().schedules().find(queue, "kept")).isPresent();
		this.engine.admin().schedules().delete(queue, "kept");

		// a selection: refused alike without the authority, and bounded per request
		String cancelSelected = "/delayqueue/api/queues/" + queue + "/messages/selected/cancel?ids=a";
		assertThat(post(viewer, cancelSelected, csrfToken(viewer)).statusCode()).isEqualTo(403);
		assertThat(post(operator, cancelSelected, null).statusCode()).isEqualTo(403);
		String tooMany = "/delayqueue/api/queues/" + queue + "/messages/selected/cancel?"
				+ String.join("&", java.util.stream.IntStream.range(0, 501).mapToObj((i) -> "ids=m" + i).toList());
		HttpResponse<String> bounded = post(operator, tooMany, token);
		assertThat(bounded.statusCode()).isEqualTo(400);
		assertThat(bounded.body()).contains("Select from 1 to 500 per request, but 501 were selected");
		// a bad id among good ones loses nothing of the others, and says why
		this.engine.template()
			.send(DelayMessage.builder("y").queue(queue).id("good").delay(Duration.ofHours(1)).build());
		HttpResponse<String> mixed = post(operator,
				"/delayqueue/api/queues/" + queue + "/messages/selected/cancel?ids=good&ids=gone&ids=%01bad", token);
		assertThat(mixed.statusCode()).isEqualTo(200);
		assertThat(mixed.body()).contains("\"done\":1", "\"notFound\":[\"gone\"]", "control character");
		assertThat(this.engine.admin().scheduledMessage(queue, "good")).isEmpty();

		// reads are open in the sample
		assertThat(get(anonymous, "/delayqueue/api/queues/" + queue).statusCode()).isEqualTo(200);
		assertThat(get(anonymous, "/delayqueue/api/queues/no-such-queue").statusCode()).isEqualTo(404);
		this.engine.admin().resume(queue);
	}

	private HttpClient signedIn(String user, String password) throws Exception {
		HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
		String login = get(client, "/login").body();
		Matcher csrf = Pattern.compile("name=\"_csrf\" type=\"hidden\" value=\"([^\"]+)\"").matcher(login);
		if (!csrf.find()) {
			csrf = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(login);
			assertThat(csrf.find()).as("the login page's CSRF field in %s", login).isTrue();
		}
		String form = "username=" + user + "&password=" + password + "&_csrf="
				+ URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8);
		HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(url("/login")))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(302);
		assertThat(response.headers().firstValue("Location").orElse("")).doesNotContain("error");
		return client;
	}

	private String csrfToken(HttpClient client) throws Exception {
		String session = get(client, "/delayqueue/api/session").body();
		Matcher token = Pattern.compile("\"csrfToken\":\"([^\"]+)\"").matcher(session);
		assertThat(token.find()).as("a CSRF token in %s", session).isTrue();
		return token.group(1);
	}

	private HttpResponse<String> get(HttpClient client, String path) throws Exception {
		return client.send(HttpRequest.newBuilder(URI.create(url(path))).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(HttpClient client, String path, String csrfToken) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url(path)))
			.header("X-DelayQueue-Dashboard", "1")
			.POST(HttpRequest.BodyPublishers.noBody());
		if (csrfToken != null) {
			request.header("X-CSRF-TOKEN", csrfToken);
		}
		return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
