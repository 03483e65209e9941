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

package io.github.delayqueue.core.internal.redis;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The envelope's two versions: without expiry byte for byte what earlier versions wrote
 * (so data written before reads the same), with expiry the 13-digit field the scripts
 * rewrite.
 */
class EnvelopeTests {

	private static final byte[] PAYLOAD = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

	@Test
	void withoutExpiryItIsVersionOneAsBefore() {
		byte[] bytes = new Envelope(Map.of("h", "v"), 3, PAYLOAD).encode();
		byte[] expected = new byte[] { 1, 3, 1, 1, 'h', 1, 'v' };
		assertThat(bytes).startsWith(expected).hasSize(expected.length + PAYLOAD.length);
		assertThat(Envelope.decode(bytes).expiry()).isZero();
	}

	@Test
	void withExpiryItIsVersionTwoWithThirteenDigitsTheScriptsRewrite() {
		byte[] bytes = new Envelope(Map.of(), 0, 1_500, null, PAYLOAD).encode();
		assertThat(bytes[0]).isEqualTo((byte) 2);
		assertThat(new String(bytes, 1, 13, StandardCharsets.US_ASCII)).isEqualTo("0000000001500");
		Envelope decoded = Envelope.decode(bytes);
		assertThat(decoded.expiry()).isEqualTo(1_500);
		assertThat(decoded.payload()).isEqualTo(PAYLOAD);
		// as the scripts write it once due: an epoch ms
		byte[] due = bytes.clone();
		System.arraycopy("1790000000000".getBytes(StandardCharsets.US_ASCII), 0, due, 1, 13);
		assertThat(Envelope.decode(due).expiry()).isEqualTo(1_790_000_000_000L);
	}

	@Test
	void aKeyComesAfterTheExpiryDigitsSoTheScriptsFindTheExpiryWhereTheyLook() {
		Envelope keyOnly = Envelope.decode(new Envelope(Map.of("h", "v"), 2, 0, "tenant-7", PAYLOAD).encode());
		assertThat(keyOnly.key()).isEqualTo("tenant-7");
		assertThat(keyOnly.expiry()).isZero();
		assertThat(keyOnly.headers()).containsEntry("h", "v");
		assertThat(keyOnly.payload()).isEqualTo(PAYLOAD);
		byte[] both = new Envelope(Map.of(), 0, 1_500, "tenant-7", PAYLOAD).encode();
		assertThat(both[0]).isEqualTo((byte) 4);
		assertThat(new String(both, 1, 13, StandardCharsets.US_ASCII)).isEqualTo("0000000001500");
		Envelope decoded = Envelope.decode(both);
		assertThat(decoded.key()).isEqualTo("tenant-7");
		assertThat(decoded.expiry()).isEqualTo(1_500);
		assertThat(decoded.payload()).isEqualTo(PAYLOAD);
	}

	@Test
	void aMalformedExpiryIsRefused() {
		byte[] bytes = new Envelope(Map.of(), 0, 1_500, null, PAYLOAD).encode();
		bytes[5] = 'x';
		assertThatIllegalArgumentException().isThrownBy(() -> Envelope.decode(bytes))
			.withMessageContaining("Malformed expiry");
	}

}
