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

package io.github.delayqueue.core.annotation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.listener.DeadLetterHandler;

import org.springframework.util.ReflectionUtils;

/**
 * A {@link DeadLetterListener} method as a {@link DeadLetterHandler}: its parameters are
 * at most one payload and at most one {@link DeadLetter}.
 */
final class DeadLetterMethod implements DeadLetterHandler<Object> {

	private final Object bean;

	private final Method method;

	private final int payloadIndex;

	private final int letterIndex;

	private DeadLetterMethod(Object bean, Method method, int payloadIndex, int letterIndex) {
		this.bean = bean;
		this.method = method;
		this.payloadIndex = payloadIndex;
		this.letterIndex = letterIndex;
	}

	static DeadLetterMethod of(Object bean, Method method) {
		int payload = -1;
		int letter = -1;
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			if (types[i] == DeadLetter.class) {
				if (letter >= 0) {
					throw new IllegalArgumentException("it takes two DeadLetter parameters; declare one");
				}
				letter = i;
			}
			else {
				if (payload >= 0) {
					throw new IllegalArgumentException(
							"it takes two payload parameters (" + types[payload].getSimpleName() + " and "
									+ types[i].getSimpleName() + "); declare one, and a DeadLetter if needed");
				}
				payload = i;
			}
		}
		if (payload < 0 && letter < 0) {
			throw new IllegalArgumentException("it takes no parameter; declare the payload, a DeadLetter, or both");
		}
		ReflectionUtils.makeAccessible(method);
		return new DeadLetterMethod(bean, method, payload, letter);
	}

	/**
	 * @return the type payloads are decoded to ({@code Object} when the method takes
	 * none)
	 */
	Type payloadType() {
		return (this.payloadIndex >= 0) ? this.method.getGenericParameterTypes()[this.payloadIndex] : Object.class;
	}

	@Override
	public void handle(Object payload, DeadLetter letter) throws Exception {
		Object[] args = new Object[this.method.getParameterCount()];
		if (this.payloadIndex >= 0) {
			args[this.payloadIndex] = payload;
		}
		if (this.letterIndex >= 0) {
			args[this.letterIndex] = letter;
		}
		try {
			this.method.invoke(this.bean, args);
		}
		catch (InvocationTargetException ex) {
			if (ex.getCause() instanceof Exception cause) {
				throw cause;
			}
			throw ex;
		}
	}

}
