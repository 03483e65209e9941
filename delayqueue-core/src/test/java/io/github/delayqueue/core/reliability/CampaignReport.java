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

package io.github.delayqueue.core.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.reliability.FaultCampaign.Fault;
import io.github.delayqueue.core.reliability.FaultCampaign.Injected;

/**
 * What a {@link FaultCampaign} did, checked from the applications' own lines: every send
 * and every handler start, against the faults and the queue's stats at the end.
 * <ul>
 * <li><b>lost</b>: a send that returned (its replica confirmed it) whose message a group
 * never started;</li>
 * <li><b>early</b>: a start before the message's due time;</li>
 * <li><b>reruns</b>, by cause: after the JVM that ran it was killed ({@code crash}),
 * after a run that had finished ({@code finished}: an acknowledgement a failover lost, or
 * a start that should not have been), while the earlier run may still have run
 * ({@code lease moved}); {@code stale} counts the reruns that started with a lower
 * attempt than a run before them: a consumer that started from a read made before its
 * lease went to another consumer;</li>
 * <li><b>order</b>: in the ordered group, a message started for the first time after a
 * later-due message of its key;</li>
 * <li><b>stalls</b>: for each fault, the longest time without a successful send from its
 * start to 10 s after its end; after a promotion, how long until a send succeeded;</li>
 * <li><b>stats</b>: the queue's scheduled, ready and in-flight counts at the end, which
 * must be 0 once everything was handled.</li>
 * </ul>
 */
final class CampaignReport {

	/** A send as the producer saw it. */
	record Sent(String id, String key, long due, long begin, long end, boolean confirmed) {
	}

	/** A handler start. */
	record Start(String app, String group, String id, int attempt, long at) {
	}

	final String topology;

	final long seed;

	final List<Injected> faults;

	final QueueStats stats;

	final Map<String, Sent> sent = new LinkedHashMap<>();

	final List<String> failed = new ArrayList<>();

	final List<Start> starts = new ArrayList<>();

	/** group → id → when each run finished. */
	final Map<String, Map<String, List<Long>>> done = new HashMap<>();

	final Map<String, List<String>> lost = new TreeMap<>();

	final Map<String, List<String>> early = new TreeMap<>();

	final Map<String, Map<String, Integer>> reruns = new TreeMap<>();

	final Map<String, Integer> stale = new TreeMap<>();

	/** Reruns after a finished run, by the kind of the fault before them. */
	final Map<Fault, Integer> finishedRerunsByFault = new EnumMap<>(Fault.class);

	final List<String> orderViolations = new ArrayList<>();

	final Map<Fault, Long> longestStall = new EnumMap<>(Fault.class);

	final Map<Fault, Long> acceptedAfterPromotion = new EnumMap<>(Fault.class);

	final Map<Fault, Long> returnedAfterPromotion = new EnumMap<>(Fault.class);

	private CampaignReport(String topology, long seed, List<Injected> faults, QueueStats stats) {
		this.topology = topology;
		this.seed = seed;
		this.faults = faults;
		this.stats = stats;
	}

	static CampaignReport of(String topology, long seed, long started, long stopped, Path directory,
			List<Injected> faults, QueueStats stats) {
		CampaignReport report = new CampaignReport(topology, seed, faults, stats);
		try (Stream<Path> files = Files.list(directory)) {
			for (Path file : files.sorted().toList()) {
				String app = file.getFileName().toString().replace(".log", "");
				for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
					report.read(app, line);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		report.starts.sort(Comparator.comparingLong(Start::at));
		report.check();
		return report;
	}

	private void read(String app, String line) {
		String[] f = line.split(" ", 7);
		switch (f[0]) {
			case "SENT" -> {
				if (f.length >= 7) {
					this.sent.put(f[1], new Sent(f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4]),
							Long.parseLong(f[5]), f[6].trim().equals("ok")));
				}
			}
			case "FAILED" -> this.failed.add(line);
			case "START" -> {
				if (f.length >= 5) {
					this.starts.add(new Start(app, f[1], f[2], Integer.parseInt(f[3]), Long.parseLong(f[4].trim())));
				}
			}
			case "DONE" -> {
				if (f.length >= 4) {
					this.done.computeIfAbsent(f[1], (g) -> new HashMap<>())
						.computeIfAbsent(f[2], (id) -> new ArrayList<>())
						.add(Long.parseLong(f[3].trim()));
				}
			}
			default -> {
				// the applications' own log lines
			}
		}
	}

	private void check() {
		Map<String, Map<String, List<Start>>> byGroup = new TreeMap<>();
		for (Start start : this.starts) {
			byGroup.computeIfAbsent(start.group(), (g) -> new LinkedHashMap<>())
				.computeIfAbsent(start.id(), (id) -> new ArrayList<>())
				.add(start);
		}
		for (String group : CampaignApp.GROUPS) {
			Map<String, List<Start>> runs = byGroup.getOrDefault(group, Map.of());
			this.lost.put(group,
					this.sent.values()
						.stream()
						.filter(Sent::confirmed)
						.map(Sent::id)
						.filter((id) -> !runs.containsKey(id))
						.toList());
			List<String> tooEarly = new ArrayList<>();
			Map<String, Integer> causes = new TreeMap<>();
			int staleStarts = 0;
			for (Map.Entry<String, List<Start>> entry : runs.entrySet()) {
				Sent sent = this.sent.get(entry.getKey());
				List<Start> list = entry.getValue();
				for (Start start : list) {
					if (sent != null && start.at() < sent.due()) {
						tooEarly.add(start.id() + " started " + (sent.due() - start.at()) + " ms early");
					}
				}
				int highest = list.get(0).attempt();
				for (int i = 1; i < list.size(); i++) {
					Start previous = list.get(i - 1);
					Start rerun = list.get(i);
					String cause = cause(group, previous, rerun);
					causes.merge(cause, 1, Integer::sum);
					if (cause.equals("finished")) {
						Injected fault = faultBefore(rerun.at());
						if (fault != null) {
							this.finishedRerunsByFault.merge(fault.fault(), 1, Integer::sum);
						}
					}
					if (rerun.attempt() < highest) {
						staleStarts++;
					}
					highest = Math.max(highest, rerun.attempt());
				}
			}
			this.early.put(group, tooEarly);
			this.reruns.put(group, causes);
			this.stale.put(group, staleStarts);
		}
		checkOrder(byGroup.getOrDefault("ordered", Map.of()));
		checkStalls();
	}

	private String cause(String group, Start previous, Start rerun) {
		List<Long> finished = this.done.getOrDefault(group, Map.of()).getOrDefault(previous.id(), List.of());
		if (finished.stream().anyMatch((at) -> at >= previous.at() && at <= rerun.at())) {
			return "finished";
		}
		for (Injected fault : this.faults) {
			if (fault.fault() == Fault.APP_KILL && fault.detail().startsWith(previous.app() + " ")
					&& fault.start() >= previous.at() && fault.start() <= rerun.at()) {
				return "crash";
			}
		}
		return "lease moved";
	}

	private Injected faultBefore(long at) {
		Injected before = null;
		for (Injected fault : this.faults) {
			if (fault.start() <= at) {
				before = fault;
			}
		}
		return before;
	}

	private void checkOrder(Map<String, List<Start>> runs) {
		Map<String, List<Sent>> byKey = new HashMap<>();
		for (Sent sent : this.sent.values()) {
			if (runs.containsKey(sent.id())) {
				byKey.computeIfAbsent(sent.key(), (k) -> new ArrayList<>()).add(sent);
			}
		}
		for (List<Sent> messages : byKey.values()) {
			messages.sort(Comparator.comparingLong(Sent::due));
			long latestFirstStart = Long.MIN_VALUE;
			String latest = null;
			for (Sent message : messages) {
				long firstStart = runs.get(message.id()).get(0).at();
				if (firstStart < latestFirstStart) {
					this.orderViolations.add(message.id() + " (due " + message.due() + ") first started at "
							+ firstStart + ", after " + latest + " of its key at " + latestFirstStart);
				}
				if (firstStart > latestFirstStart) {
					latestFirstStart = firstStart;
					latest = message.id();
				}
			}
		}
	}

	private void checkStalls() {
		List<Long> successes = this.sent.values().stream().map(Sent::end).sorted().toList();
		List<Long> begins = this.sent.values().stream().map(Sent::begin).sorted().toList();
		for (int i = 0; i < this.faults.size(); i++) {
			Injected fault = this.faults.get(i);
			long from = fault.start();
			// up to 10 s after it ends, or to the next fault
			long until = Math.min(fault.end() + 10_000,
					(i + 1 < this.faults.size()) ? this.faults.get(i + 1).start() : Long.MAX_VALUE);
			long previous = from;
			long longest = 0;
			for (long at : successes) {
				if (at <= from) {
					continue;
				}
				if (at > until) {
					longest = Math.max(longest, at - previous);
					break;
				}
				longest = Math.max(longest, at - previous);
				previous = at;
			}
			this.longestStall.merge(fault.fault(), longest, Math::max);
			if (fault.promoted() != null) {
				long promoted = fault.promoted();
				// the first send begun after the promotion that the new master took: it
				// took it as it began (its reply then waits for a replica to confirm)
				long after = begins.stream()
					.filter((at) -> at >= promoted)
					.findFirst()
					.map((at) -> at - promoted)
					.orElse(Long.MAX_VALUE);
				this.acceptedAfterPromotion.merge(fault.fault(), after, Math::max);
				long returned = successes.stream()
					.filter((at) -> at >= promoted)
					.findFirst()
					.map((at) -> at - promoted)
					.orElse(Long.MAX_VALUE);
				this.returnedAfterPromotion.merge(fault.fault(), returned, Math::max);
			}
		}
	}

	/** Whether the consumers drained: every confirmed send started in each group. */
	boolean drained() {
		return this.lost.values().stream().allMatch(List::isEmpty) && this.stats != null && this.stats.inFlight() == 0
				&& this.stats.scheduled() == 0;
	}

	long confirmed() {
		return this.sent.values().stream().filter(Sent::confirmed).count();
	}

	long noScript() {
		return this.failed.stream().filter((line) -> line.contains("NOSCRIPT")).count();
	}

	int lostCount() {
		return this.lost.values().stream().mapToInt(List::size).sum();
	}

	int earlyCount() {
		return this.early.values().stream().mapToInt(List::size).sum();
	}

	int staleCount() {
		return this.stale.values().stream().mapToInt(Integer::intValue).sum();
	}

	long plannedFailovers() {
		return this.faults.stream().filter((fault) -> fault.fault() == Fault.PLANNED_FAILOVER).count();
	}

	/** The stats at the end, against the truth (everything handled: nothing waits). */
	boolean statsTrue() {
		return this.stats != null && this.stats.scheduled() == 0 && this.stats.ready() == 0
				&& this.stats.inFlight() == 0 && this.stats.groups().stream().allMatch((g) -> g.lag() == 0);
	}

	@Override
	public String toString() {
		StringBuilder text = new StringBuilder();
		Map<Fault, Long> byKind = new EnumMap<>(Fault.class);
		this.faults.forEach((fault) -> byKind.merge(fault.fault(), 1L, Long::sum));
		text.append("Fault campaign on ").append(this.topology).append(", seed ").append(this.seed).append('\n');
		text.append("  faults: ").append(this.faults.size()).append(' ').append(byKind).append('\n');
		text.append("  sends: ")
			.append(this.sent.size() + this.failed.size())
			.append(" (")
			.append(confirmed())
			.append(" confirmed, ")
			.append(this.sent.size() - confirmed())
			.append(" unconfirmed, ")
			.append(this.failed.size())
			.append(" failed, ")
			.append(noScript())
			.append(" of them NOSCRIPT)\n");
		text.append("  handler starts: ").append(this.starts.size()).append('\n');
		text.append("  lost: ").append(this.lost).append('\n');
		text.append("  early: ").append(this.early).append('\n');
		text.append("  reruns by cause: ")
			.append(this.reruns)
			.append("; stale starts: ")
			.append(this.stale)
			.append('\n');
		text.append("  reruns after a finished run, by the fault before them: ")
			.append(this.finishedRerunsByFault)
			.append(" (")
			.append(plannedFailovers())
			.append(" planned failovers)\n");
		text.append("  order violations (ordered group): ")
			.append(this.orderViolations.size())
			.append(this.orderViolations.isEmpty() ? ""
					: " " + this.orderViolations.subList(0, Math.min(5, this.orderViolations.size())))
			.append('\n');
		text.append("  longest stall of sends after each kind of fault (ms): ").append(this.longestStall).append('\n');
		text.append("  first send accepted after a promotion, began / returned (ms, worst): ")
			.append(this.acceptedAfterPromotion)
			.append(" / ")
			.append(this.returnedAfterPromotion)
			.append('\n');
		text.append("  stats at the end: ").append(this.stats).append(statsTrue() ? " (true)" : " (NOT the truth)");
		if (!this.failed.isEmpty()) {
			text.append("\n  failures, first: ").append(this.failed.get(0));
		}
		return text.toString();
	}

}
