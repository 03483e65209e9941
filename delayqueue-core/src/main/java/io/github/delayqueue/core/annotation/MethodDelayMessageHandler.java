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

import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.codec.MessageDecodingException;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.DelayMessageHandler;

import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.util.ReflectionUtils;

/**
 * Invokes a {@link DelayListener} method: works out once, at start-up, what each
 * parameter receives (the payload, the context, a header, the headers), so that a
 * misdeclared method fails then, with a message naming it.
 */
final class MethodDelayMessageHandler implements DelayMessageHandler<Object> {

	private final Object bean;

	private final Method method;

	private final String description;

	private final List<Argument> arguments;

	private final Type payloadType;

	private final boolean nullablePayload;

	private MethodDelayMessageHandler(Object bean, Method method, String description, List<Argument> arguments,
			Type payloadType, boolean nullablePayload) {
		this.bean = bean;
		this.method = method;
		this.description = description;
		this.arguments = arguments;
		this.payloadType = payloadType;
		this.nullablePayload = nullablePayload;
	}

	/**
	 * Analyses a method's parameters.
	 * @param bean the bean to invoke on
	 * @param method the method, invocable on the bean (e.g. the proxy's)
	 * @param targetClass the bean's user class, to resolve generic parameter types
	 * @param description the method, as named in error messages
	 * @return the handler
	 * @throws IllegalStateException when the parameters are misdeclared
	 */
	static MethodDelayMessageHandler of(Object bean, Method method, Class<?> targetClass, String description) {
		List<Argument> arguments = new ArrayList<>();
		Type payloadType = null;
		boolean nullablePayload = false;
		int payloads = 0;
		for (int i = 0; i < method.getParameterCount(); i++) {
			MethodParameter parameter = new MethodParameter(method, i);
			Class<?> type = parameter.getParameterType();
			DelayHeader header = parameter.getParameterAnnotation(DelayHeader.class);
			if (header != null) {
				if (type != String.class) {
					throw new IllegalStateException("@DelayHeader(\"" + header.value() + "\") parameter " + i
							+ " must be a String, but is " + type.getName());
				}
				arguments.add(new Argument(Kind.HEADER, header.value(), header.required()));
			}
			else if (parameter.hasParameterAnnotation(DelayHeaders.class)) {
				if (!type.isAssignableFrom(Map.class)) {
					throw new IllegalStateException("@DelayHeaders parameter " + i
							+ " must be a Map<String, String>, but is " + type.getName());
				}
				arguments.add(new Argument(Kind.HEADERS, null, false));
			}
			else if (type == DelayMessageContext.class) {
				arguments.add(new Argument(Kind.CONTEXT, null, false));
			}
			else if (MethodDelayBatchHandler.isContextList(method, i, targetClass)) {
				throw new IllegalStateException("parameter " + i + " is a list of DelayMessageContext, which only a "
						+ "batch listener takes: set batch = \"true\" on @DelayListener");
			}
			else {
				payloads++;
				payloadType = ResolvableType.forMethodParameter(method, i, targetClass).getType();
				nullablePayload = isNullable(method, i);
				arguments.add(new Argument(Kind.PAYLOAD, null, false));
			}
		}
		if (payloads > 1) {
			throw new IllegalStateException("it has " + payloads
					+ " payload parameters; a @DelayListener method takes at most one, plus DelayMessageContext, "
					+ "@DelayHeader and @DelayHeaders parameters");
		}
		ReflectionUtils.makeAccessible(method);
		return new MethodDelayMessageHandler(bean, method, description, List.copyOf(arguments),
				(payloadType != null) ? payloadType : byte[].class, nullablePayload);
	}

	/**
	 * Returns whether a parameter is annotated {@code @Nullable}, of any package
	 * (JSpecify, Jakarta, Spring, ...): as a declaration annotation or on its type
	 * (type-use).
	 */
	static boolean isNullable(Method method, int index) {
		return isNullable(method.getParameterAnnotations()[index])
				|| isNullable(method.getAnnotatedParameterTypes()[index].getAnnotations());
	}

	static boolean isNullable(Annotation[] annotations) {
		for (Annotation annotation : annotations) {
			if ("Nullable".equals(annotation.annotationType().getSimpleName())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Returns the type the payload is decoded to ({@code byte[]} when the method takes no
	 * payload).
	 * @return the type
	 */
	Type payloadType() {
		return this.payloadType;
	}

	/**
	 * Returns {@code true} when the payload parameter is annotated {@code @Nullable} (any
	 * package).
	 * @return whether the method accepts a {@code null} payload
	 */
	@Override
	public boolean acceptsNullPayload() {
		return this.nullablePayload;
	}

	@Override
	public void handle(Object payload, DelayMessageContext context) throws Exception {
		Object[] args = new Object[this.arguments.size()];
		for (int i = 0; i < args.length; i++) {
			Argument argument = this.arguments.get(i);
			args[i] = switch (argument.kind) {
				case PAYLOAD -> payload;
				case CONTEXT -> context;
				case HEADERS -> context.headers();
				case HEADER -> header(context, argument);
			};
		}
		invoke(this.bean, this.method, this.description, args);
	}

	/**
	 * Invokes a listener method, rethrowing what it threw as it was thrown.
	 * @param bean the bean
	 * @param method the method
	 * @param description the method, as named in error messages
	 * @param args the arguments
	 * @throws Exception what the method threw
	 */
	static void invoke(Object bean, Method method, String description, Object[] args) throws Exception {
		try {
			method.invoke(bean, args);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("Cannot invoke " + description + " with arguments of types "
					+ Arrays.stream(args).map((arg) -> (arg != null) ? arg.getClass().getName() : "null").toList()
					+ ": " + ex.getMessage(), ex);
		}
		catch (InvocationTargetException ex) {
			Throwable cause = ex.getTargetException();
			if (cause instanceof Exception exception) {
				throw exception;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw ex;
		}
	}

	private String header(DelayMessageContext context, Argument argument) {
		String value = context.headers().get(argument.name);
		if (value == null && argument.required) {
			throw new MessageDecodingException("Message '" + context.id() + "' has no header '" + argument.name
					+ "', which " + this.description + " requires", null);
		}
		return value;
	}

	@Override
	public String toString() {
		return this.description;
	}

	private enum Kind {

		PAYLOAD, CONTEXT, HEADER, HEADERS

	}

	private record Argument(Kind kind, String name, boolean required) {
	}

}
