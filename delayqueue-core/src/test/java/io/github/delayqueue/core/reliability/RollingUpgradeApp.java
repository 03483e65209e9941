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

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

/**
 * One instance of the {@link RollingUpgradeTests}, in a JVM of its own, on the engine of
 * whichever release its class path holds: it uses only the public API that both releases
 * have. It consumes a queue in a shared and an ordered group and prints
 * {@code START <group> <id> <attempt> <ms>} and {@code DONE <group> <id> <ms>} (the
 * machine's wall clock, as Redis's); {@code STOP} on its standard input stops it as a
 * deployment would (its containers, then the engine), and it prints {@code STOPPED}. Once
 * its containers started it prints {@code READY <name> <where its engine's classes are>}.
 * <p>
 * Arguments: {@code <port> <queue> <partitions> <name>}.
 */
public final class RollingUpgradeApp {

	private static final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

	private RollingUpgradeApp() {
	}

	public static void main(String[] args) throws Exception {
		String queue = args[1];
		DelayQueueEngine engine = ReliabilitySupport.childEngine(args[0], queue, Integer.parseInt(args[2]));
		List<DelayQueueListenerContainer> containers = ReliabilitySupport.historyListeners(engine, queue, out, 10);
		// where its engine comes from: the old release's jar or this build's classes
		out.println(
				"READY " + args[3] + " " + DelayQueueEngine.class.getProtectionDomain().getCodeSource().getLocation());
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = commands.readLine(); line != null; line = commands.readLine()) {
			if (line.equals("STOP")) {
				break;
			}
		}
		containers.forEach(DelayQueueListenerContainer::stop);
		engine.close();
		out.println("STOPPED " + args[3]);
		System.exit(0);
	}

}
