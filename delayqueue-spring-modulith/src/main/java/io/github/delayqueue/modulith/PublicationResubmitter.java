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
package io.github.delayqueue.modulith;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.modulith.events.EventPublication;
import org.springframework.modulith.events.IncompleteEventPublications;
import org.springframework.modulith.events.core.EventPublicationRepository;

/**
 * Resubmits, while the application runs, the publications a blip of Redis left
 * incomplete: those whose externalization failed (a send refused or timed out), at once,
 * and those incomplete for longer than {@code staleAfter} (a JVM that lost track of
 * them), every {@code interval}. Without it, they wait for a restart with
 * {@code republish-outstanding-events-on-restart}. Only the publications of events this
 * transport externalizes are resubmitted; other listeners' are left alone.
 * <p>
 * A publication left {@code RESUBMITTED} (a JVM that died during its resubmission, a
 * resubmission that threw before its send) is one Modulith's registry never resubmits
 * again: it resubmits only a publication not already marked resubmitted. Once stale since
 * its last resubmission, it is marked failed through the
 * {@link EventPublicationRepository}, then resubmitted.
 */
public class PublicationResubmitter implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(PublicationResubmitter.class);

	private final IncompleteEventPublications publications;

	private final Predicate<Object> externalized;

	private final Duration interval;

	private final Duration staleAfter;

	private final Clock clock;

	private final EventPublicationRepository repository;

	private final AtomicLong failedResubmitted = new AtomicLong();

	private final AtomicLong staleResubmitted = new AtomicLong();

	/** The publications whose events could not be read, each logged once. */
	private final Set<UUID> unreadable = ConcurrentHashMap.newKeySet();

	/**
	 * The publications left resubmitted that could not be marked failed, each logged
	 * once.
	 */
	private final Set<UUID> stuck = ConcurrentHashMap.newKeySet();

	private volatile ScheduledExecutorService executor;

	private volatile Throwable lastFailure;

	/**
	 * @param publications Modulith's incomplete publications
	 * @param externalized which events this transport externalizes
	 * @param interval how often to look
	 * @param staleAfter how long a publication may stay incomplete without having failed
	 * @param clock the clock the registry's dates are compared with
	 */
	public PublicationResubmitter(IncompleteEventPublications publications, Predicate<Object> externalized,
			Duration interval, Duration staleAfter, Clock clock) {
		this(publications, externalized, interval, staleAfter, clock, null);
	}

	/**
	 * @param publications Modulith's incomplete publications
	 * @param externalized which events this transport externalizes
	 * @param interval how often to look
	 * @param staleAfter how long a publication may stay incomplete without having failed
	 * @param clock the clock the registry's dates are compared with
	 * @param repository where a publication left resubmitted is marked failed, so that
	 * the registry resubmits it again; {@code null} leaves it, logged once
	 */
	public PublicationResubmitter(IncompleteEventPublications publications, Predicate<Object> externalized,
			Duration interval, Duration staleAfter, Clock clock, EventPublicationRepository repository) {
		if (interval == null || interval.compareTo(Duration.ofMillis(100)) < 0) {
			throw new IllegalArgumentException(
					"delayqueue.modulith.resubmit.interval must be at least 100ms, but was " + interval);
		}
		if (staleAfter == null || staleAfter.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new IllegalArgumentException(
					"delayqueue.modulith.resubmit.stale-after must be at least 1s, but was " + staleAfter);
		}
		this.publications = publications;
		this.externalized = externalized;
		this.interval = interval;
		this.staleAfter = staleAfter;
		this.clock = clock;
		this.repository = repository;
	}

	/**
	 * Resubmits what is due now: every failed publication, and those incomplete past the
	 * staleness limit.
	 */
	public void resubmitOnce() {
		long failedBefore = this.failedResubmitted.get();
		long staleBefore = this.staleResubmitted.get();
		try {
			this.publications.resubmitIncompletePublications(this::dueIfReadable);
			this.lastFailure = null;
			long failed = this.failedResubmitted.get() - failedBefore;
			long stale = this.staleResubmitted.get() - staleBefore;
			if (failed + stale > 0) {
				logger.info("Resubmitted " + failed + " failed and " + stale + " stale event publication(s)");
			}
		}
		catch (RuntimeException ex) {
			if (this.lastFailure == null) {
				logger.warn("Cannot resubmit the incomplete event publications now (retried every "
						+ this.interval.toMillis() + " ms): " + ex.getMessage(), ex);
			}
			this.lastFailure = ex;
		}
	}

	/**
	 * Whether a publication is due; one whose event cannot be read (a class changed since
	 * it was stored) is left alone, logged once, and does not end the look: the others
	 * are still resubmitted.
	 */
	private boolean dueIfReadable(EventPublication publication) {
		try {
			return due(publication);
		}
		catch (RuntimeException ex) {
			if (this.unreadable.add(publication.getIdentifier())) {
				logger.warn("Cannot resubmit event publication " + publication.getIdentifier()
						+ ": its event cannot be read (" + ex.getMessage() + "); the others are resubmitted");
			}
			return false;
		}
	}

	private boolean due(EventPublication publication) {
		if (publication.isCompleted() || !this.externalized.test(publication.getEvent())) {
			return false;
		}
		if (publication.getStatus() == EventPublication.Status.FAILED) {
			this.failedResubmitted.incrementAndGet();
			return true;
		}
		Instant last = publication.getLastResubmissionDate();
		Instant since = (last != null && last.isAfter(publication.getPublicationDate())) ? last
				: publication.getPublicationDate();
		if (!since.plus(this.staleAfter).isBefore(this.clock.instant())) {
			return false;
		}
		if (publication.getStatus() == EventPublication.Status.RESUBMITTED && !markFailed(publication)) {
			return false;
		}
		this.staleResubmitted.incrementAndGet();
		return true;
	}

	/**
	 * Marks a publication left resubmitted failed: the registry resubmits only one not
	 * already marked resubmitted.
	 */
	private boolean markFailed(EventPublication publication) {
		if (this.repository == null) {
			if (this.stuck.add(publication.getIdentifier())) {
				logger.warn("Cannot resubmit event publication " + publication.getIdentifier() + ": resubmitted at "
						+ publication.getLastResubmissionDate() + " and incomplete since, and Modulith's registry "
						+ "resubmits no publication marked resubmitted; no EventPublicationRepository to mark it failed");
			}
			return false;
		}
		try {
			this.repository.markFailed(publication.getIdentifier());
			return true;
		}
		catch (RuntimeException ex) {
			if (this.stuck.add(publication.getIdentifier())) {
				logger.warn("Cannot mark event publication " + publication.getIdentifier() + ", left resubmitted, "
						+ "failed (" + ex.getMessage() + "); tried again at every look", ex);
			}
			return false;
		}
	}

	/**
	 * @return how many failed publications were resubmitted
	 */
	public long failedResubmitted() {
		return this.failedResubmitted.get();
	}

	/**
	 * @return how many stale publications (incomplete, not failed) were resubmitted
	 */
	public long staleResubmitted() {
		return this.staleResubmitted.get();
	}

	/**
	 * @return why the last look failed, {@code null} when it did not
	 */
	public Throwable lastFailure() {
		return this.lastFailure;
	}

	@Override
	public void start() {
		ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "delayqueue-modulith-resubmit");
			thread.setDaemon(true);
			return thread;
		});
		// resubmitOnce catches what it can: an Error ends the thread, and says so
		started.scheduleWithFixedDelay(() -> {
			try {
				resubmitOnce();
			}
			catch (Error ex) {
				logger.error("The event publication resubmitter stopped: failed publications now wait for a restart",
						ex);
				throw ex;
			}
		}, this.interval.toMillis(), this.interval.toMillis(), TimeUnit.MILLISECONDS);
		this.executor = started;
	}

	@Override
	public void stop() {
		ScheduledExecutorService running = this.executor;
		this.executor = null;
		if (running != null) {
			running.shutdownNow();
		}
	}

	@Override
	public boolean isRunning() {
		return this.executor != null;
	}

}
