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

/**
 * The reader's own types that the Java blocks of the README and docs/ assume (an
 * application's payloads and services). In the default package, where the blocks are
 * compiled: a block may declare one of them itself, and its own declaration wins.
 */
final class ApplicationTypes {

	private ApplicationTypes() {
	}

}

record OrderTimeout(String orderId) {
}

record Order(String id) {
}

record Payment(String orderId) {
}

interface Orders {

	Order save(Order order);

	void cancelIfUnpaid(String orderId);

}

interface OrderService {

	String create();

	String status(String orderId);

}

interface Alerts {

	void raise(String orderId, String reason, long attempts);

}
