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

package io.github.delayqueue.core.internal.runtime;

/**
 * Describes failures for log lines and dead letters without trusting them: an exception
 * whose {@code getMessage()} or {@code toString()} throws is still described.
 */
public final class Failures {

	private Failures() {
	}

	/**
	 * Describes a failure: its message, followed by its root cause's when that says more
	 * (Spring's "Error in execution" hides Redis's "OOM command not allowed…" in a
	 * cause).
	 * @param ex the failure
	 * @return the description, never {@code null}
	 */
	public static String describe(Throwable ex) {
		Throwable root = ex;
		for (int depth = 0; depth < 32 && root.getCause() != null && root.getCause() != root; depth++) {
			root = root.getCause();
		}
		String message = message(ex);
		String rootMessage = (root != ex) ? message(root) : null;
		if (rootMessage == null || rootMessage.equals("null") || message.contains(rootMessage)) {
			return message;
		}
		return message + ": " + rootMessage;
	}

	/**
	 * Returns a failure's message, or a note saying why there is none.
	 * @param ex the failure
	 * @return its message ({@code "null"} when it has none)
	 */
	public static String message(Throwable ex) {
		try {
			return String.valueOf(ex.getMessage());
		}
		catch (Throwable broken) {
			return "(getMessage() of " + ex.getClass().getName() + " threw " + broken.getClass().getName() + ")";
		}
	}

	/**
	 * Returns a failure's class name and message, like {@code Throwable.toString()} but
	 * safe.
	 * @param ex the failure
	 * @return the summary
	 */
	public static String summary(Throwable ex) {
		return ex.getClass().getName() + ": " + message(ex);
	}

	/**
	 * Returns whether a failure or one of its causes has a message containing a text.
	 * @param ex the failure
	 * @param text the text
	 * @return whether one does
	 */
	public static boolean hasMessage(Throwable ex, String text) {
		Throwable cause = ex;
		for (int depth = 0; depth < 32 && cause != null; depth++, cause = cause.getCause()) {
			if (message(cause).contains(text)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Returns whether a logging framework can print a failure: its own and its causes'
	 * {@code getMessage()}, {@code getLocalizedMessage()} and {@code toString()} return.
	 * A log call given a failure that is not printable throws from the logger.
	 * @param ex the failure
	 * @return whether it can be handed to a logger
	 */
	public static boolean isPrintable(Throwable ex) {
		Throwable cause = ex;
		try {
			for (int depth = 0; depth < 32 && cause != null; depth++, cause = cause.getCause()) {
				cause.getMessage();
				cause.getLocalizedMessage();
				cause.toString();
			}
			return true;
		}
		catch (Throwable broken) {
			return false;
		}
	}

	/**
	 * Returns a failure's stack trace, at most {@code max} characters, or its summary
	 * when it cannot be printed.
	 * @param ex the failure
	 * @param max the most characters
	 * @return the trace
	 */
	public static String stackTrace(Throwable ex, int max) {
		java.io.StringWriter trace = new java.io.StringWriter();
		try {
			ex.printStackTrace(new java.io.PrintWriter(trace));
		}
		catch (RuntimeException broken) {
			return summary(ex);
		}
		String text = trace.toString();
		return (text.length() > max) ? text.substring(0, max) + "..." : text;
	}

	/**
	 * Logs at ERROR with the failure's stack trace, also when the failure cannot be
	 * printed by the logger.
	 * @param logger the logger
	 * @param message the message
	 * @param ex the failure, or {@code null}
	 */
	public static void logError(org.apache.commons.logging.Log logger, String message, Throwable ex) {
		if (ex == null || isPrintable(ex)) {
			logger.error(message, ex);
		}
		else {
			logger.error(message + System.lineSeparator() + stackTrace(ex, 16 * 1024));
		}
	}

}
