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

package io.github.delayqueue.core.aot;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Map;

import io.github.delayqueue.core.annotation.DelayHeader;
import io.github.delayqueue.core.annotation.DelayHeaders;
import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.listener.DelayMessageContext;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.ReflectiveProcessor;
import org.springframework.core.MethodParameter;

/**
 * Registers a {@code @DelayListener} or {@code @DeadLetterListener} method for
 * invocation, and its payload type for the codec's binding (Jackson reads and writes it
 * through its constructors, fields and accessors). The annotations are
 * {@code @Reflective} with this processor, so Spring's AOT processing applies it to every
 * bean that has such a method.
 */
public class DelayListenerReflectiveProcessor implements ReflectiveProcessor {

	private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

	@Override
	public void registerReflectionHints(ReflectionHints hints, AnnotatedElement element) {
		if (!(element instanceof Method method)) {
			return;
		}
		hints.registerMethod(method, ExecutableMode.INVOKE);
		for (int i = 0; i < method.getParameterCount(); i++) {
			MethodParameter parameter = new MethodParameter(method, i);
			if (isPayload(parameter)) {
				Type type = parameter.getGenericParameterType();
				this.bindings.registerReflectionHints(hints, type);
			}
		}
	}

	/**
	 * Whether a parameter takes the payload: not the context, a header or the headers.
	 */
	static boolean isPayload(MethodParameter parameter) {
		Class<?> type = parameter.getParameterType();
		return !parameter.hasParameterAnnotation(DelayHeader.class)
				&& !parameter.hasParameterAnnotation(DelayHeaders.class) && type != DelayMessageContext.class
				&& type != DeadLetter.class && type != Map.class && type != byte[].class && type != String.class;
	}

}
