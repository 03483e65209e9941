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

package io.github.delayqueue.autoconfigure.actuate;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the endpoint and the dashboard show payloads.
 */
class PayloadTextTests {

	@Test
	void aCutThroughAMultiByteCharacterLeavesItOutAndStaysText() {
		// 'é' is two bytes: byte 10 is the first half of the sixth
		String text = "abcde" + "ééééé";
		byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
		assertThat(PayloadText.preview(bytes, 10)).isEqualTo("abcdeéé... (15 bytes)");
		assertThat(PayloadText.preview(bytes, 11)).isEqualTo("abcdeééé... (15 bytes)");
		assertThat(PayloadText.preview("a€b".getBytes(StandardCharsets.UTF_8), 2)).isEqualTo("a... (5 bytes)");
		assertThat(PayloadText.preview(bytes, 15)).isEqualTo(text);
	}

	@Test
	void binaryContentIsShownAsItsSize() {
		assertThat(PayloadText.preview(new byte[] { 'a', (byte) 0xC3 }, 100)).as("ends inside a character")
			.isEqualTo("(2 bytes of binary content)");
		assertThat(PayloadText.preview(new byte[] { (byte) 0xFF, 'a', 'b' }, 2))
			.isEqualTo("(3 bytes of binary content)");
		assertThat(PayloadText.preview(new byte[0], 10)).isEmpty();
	}

}
