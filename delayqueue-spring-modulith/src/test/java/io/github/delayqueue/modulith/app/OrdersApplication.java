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

package io.github.delayqueue.modulith.app;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Modulith application that places orders: each order's {@link OrderPlaced} event is
 * externalized to delayqueue, and {@link OrderChecks} receives it a second later. Run in
 * a child JVM, it reads {@code place <id>} lines from its input and answers
 * {@code COMMITTED <id>} once the order's transaction committed.
 */
@SpringBootApplication
public class OrdersApplication {

	public static void main(String[] args) throws Exception {
		ConfigurableApplicationContext context = SpringApplication.run(OrdersApplication.class, args);
		System.out.println("READY");
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = in.readLine(); line != null; line = in.readLine()) {
			if (line.startsWith("place ")) {
				String id = line.substring("place ".length()).strip();
				context.getBean(Orders.class).place(id, false);
				System.out.println("COMMITTED " + id);
			}
		}
		context.close();
	}

}
