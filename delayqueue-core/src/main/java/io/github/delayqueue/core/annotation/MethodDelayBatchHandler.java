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

import java.lang.reflect.AnnotatedParameterizedType;
import java.lang.reflect.AnnotatedType;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;

import io.github.delayqueue.core.listener.DelayBatchHandler;
import io.github.delayqueue.core.listener.DelayMessageContext;

import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.util.ReflectionUtils;

/**
 * Invokes a batch {@link DelayListener} method ({@code batch = "true"}): it takes the
 * payloads as a {@code List<T>} (each decoded to {@code T}), the deliveries as a
 * {@code List<DelayMessageContext>} in the same order, or both. Worked out once, at
 * start-up, so that a misdeclared method fails then, with a message naming it.
 */
final class MethodDelayBatchHandler implements DelayBatchHandler<Object> {

	private final Object bean;

	private final Method method;

	private final String description;

	/** Per parameter: whether it takes the payloads (else the contexts). */
	private final boolean[] payloadParameters;

	private final Type payloadType;

	private final boolean nullablePayload;

	private MethodDelayBatchHandler(Object bean, Method method, String description, boolean[] payloadParameters,
			Type payloadType, boolean nullablePayload) {
		this.bean = bean;
		this.method = method;
		this.description = description;
		this.payloadParameters = payloadParameters;
		this.payloadType = payloadType;
		this.nullablePayload = nullablePayload;
	}

	/**
	 * Analyses a batch method's parameters.
	 * @param bean the bean to invoke on
	 * @param method the method, invocable on the bean
	 * @param targetClass the bean's user class, to resolve generic parameter types
	 * @param description the method, as named in error messages
	 * @return the handler
	 * @throws IllegalStateException when the parameters are misdeclared
	 */
	static MethodDelayBatchHandler of(Object bean, Method method, Class<?> targetClass, String description) {
		boolean[] payloadParameters = new boolean[method.getParameterCount()];
		Type payloadType = null;
		boolean nullable = false;
		int payloads = 0;
		int contexts = 0;
		for (int i = 0; i < method.getParameterCount(); i++) {
			MethodParameter parameter = new MethodParameter(method, i);
			Class<?> type = parameter.getParameterType();
			if (parameter.hasParameterAnnotation(DelayHeader.class)
					|| parameter.hasParameterAnnotation(DelayHeaders.class) || type == DelayMessageContext.class) {
				throw new IllegalStateException("parameter " + i + " takes one message's context or headers; a batch "
						+ "@DelayListener takes List<T> payloads and a List<DelayMessageContext>, whose elements "
						+ "carry each message's headers");
			}
			if (!isList(type)) {
				throw new IllegalStateException("parameter " + i + " is a " + type.getName() + "; a batch "
						+ "@DelayListener takes its payloads as a List<T>, and may take a List<DelayMessageContext>");
			}
			if (isContextList(method, i, targetClass)) {
				contexts++;
				continue;
			}
			ResolvableType element = ResolvableType.forMethodParameter(method, i, targetClass).getGeneric(0);
			if (element == ResolvableType.NONE || element.resolve() == null) {
				throw new IllegalStateException("parameter " + i + " is a List of no declared element type; "
						+ "declare the payload type, e.g. List<Order>");
			}
			payloads++;
			payloadParameters[i] = true;
			payloadType = element.getType();
			nullable = MethodDelayMessageHandler.isNullable(method, i) || elementNullable(method, i);
		}
		if (payloads > 1 || contexts > 1) {
			throw new IllegalStateException("a batch @DelayListener takes at most one List<T> of payloads and one "
					+ "List<DelayMessageContext>");
		}
		ReflectionUtils.makeAccessible(method);
		return new MethodDelayBatchHandler(bean, method, description, payloadParameters,
				(payloadType != null) ? payloadType : byte[].class, nullable);
	}

	/**
	 * @return whether a parameter is a list of {@link DelayMessageContext}
	 */
	static boolean isContextList(Method method, int index, Class<?> targetClass) {
		ResolvableType type = ResolvableType.forMethodParameter(method, index, targetClass);
		return isList(type.toClass()) && type.getGeneric(0).resolve() == DelayMessageContext.class;
	}

	/** Whether a parameter of this type takes a list: a List, Collection or Iterable. */
	private static boolean isList(Class<?> type) {
		return type == List.class || type == java.util.Collection.class || type == Iterable.class;
	}

	/** Whether the list's element type is annotated {@code @Nullable} (type-use). */
	private static boolean elementNullable(Method method, int index) {
		AnnotatedType annotated = method.getAnnotatedParameterTypes()[index];
		if (annotated instanceof AnnotatedParameterizedType parameterized
				&& parameterized.getAnnotatedActualTypeArguments().length == 1) {
			return MethodDelayMessageHandler
				.isNullable(parameterized.getAnnotatedActualTypeArguments()[0].getAnnotations());
		}
		return false;
	}

	/**
	 * @return the type each payload is decoded to ({@code byte[]} when the method takes
	 * no payloads)
	 */
	Type payloadType() {
		return this.payloadType;
	}

	@Override
	public boolean acceptsNullPayload() {
		return this.nullablePayload;
	}

	@Override
	public void handle(List<Object> payloads, List<DelayMessageContext> contexts) throws Exception {
		Object[] args = new Object[this.payloadParameters.length];
		for (int i = 0; i < args.length; i++) {
			args[i] = this.payloadParameters[i] ? payloads : contexts;
		}
		MethodDelayMessageHandler.invoke(this.bean, this.method, this.description, args);
	}

	@Override
	public String toString() {
		return this.description;
	}

}
