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

package io.github.delayqueue.test;

import java.util.List;

/**
 * What a {@link RedisCluster} node says of itself: its id and the slots it serves.
 */
final class ClusterNodes {

	private ClusterNodes() {
	}

	static String nodeId(RedisServer node) {
		return String.valueOf(node.execute("CLUSTER", "MYID"));
	}

	static boolean servesSlot(RedisServer master, int slot) {
		String myId = nodeId(master);
		for (Object range : (List<?>) master.execute("CLUSTER", "SLOTS")) {
			List<?> entry = (List<?>) range;
			long first = (Long) entry.get(0);
			long last = (Long) entry.get(1);
			String owner = String.valueOf(((List<?>) entry.get(2)).get(2));
			if (first <= slot && slot <= last) {
				return myId.equals(owner);
			}
		}
		return false;
	}

}
