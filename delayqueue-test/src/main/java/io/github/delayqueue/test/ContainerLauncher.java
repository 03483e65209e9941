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

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Starts redis-server in a Docker container through Testcontainers, for machines with
 * Docker but no redis-server binary. The data directory is bind-mounted so that a restart
 * keeps the data, and the container port is published on the same 127.0.0.1 port each
 * time. Loaded only when Testcontainers is on the class path.
 */
final class ContainerLauncher implements RedisInstance.Launcher {

	/**
	 * The image used, overridable with the {@code delayqueue.test.redis-image} property.
	 */
	static final String IMAGE = System.getProperty("delayqueue.test.redis-image", "redis:7.0");

	static boolean isAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	@Override
	public String describe() {
		return "Docker image " + IMAGE;
	}

	@Override
	public int majorVersion() {
		String tag = DockerImageName.parse(IMAGE).getVersionPart();
		try {
			return Integer.parseInt(tag.split("\\.")[0]);
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	@Override
	public RedisInstance launch(List<List<String>> config, int port, Path directory, Duration startupTimeout) {
		List<String> command = new ArrayList<>(List.of("redis-server", "--port", "6379", "--bind", "0.0.0.0",
				"--protected-mode", "no", "--dir", "/data"));
		for (List<String> line : config) {
			command.add("--" + line.get(0));
			command.addAll(line.subList(1, line.size()));
		}
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(IMAGE));
		container.withFileSystemBind(directory.toAbsolutePath().toString(), "/data", BindMode.READ_WRITE)
			.withCommand(command.toArray(String[]::new))
			.withCreateContainerCmdModifier((cmd) -> {
				HostConfig hostConfig = (cmd.getHostConfig() != null) ? cmd.getHostConfig() : new HostConfig();
				cmd.withHostConfig(hostConfig.withPortBindings(
						new PortBinding(Ports.Binding.bindIpAndPort(ServerProbe.HOST, port), ExposedPort.tcp(6379))));
			});
		container.start();
		ContainerInstance instance = new ContainerInstance(container);
		ServerProbe.awaitReady(port, startupTimeout, instance::isAlive, instance::log);
		return instance;
	}

	private static final class ContainerInstance implements RedisInstance {

		private final GenericContainer<?> container;

		ContainerInstance(GenericContainer<?> container) {
			this.container = container;
		}

		@Override
		public boolean isAlive() {
			return this.container.isRunning();
		}

		@Override
		public void terminate(Duration timeout) {
			this.container.getDockerClient()
				.stopContainerCmd(this.container.getContainerId())
				.withTimeout((int) Math.max(1, timeout.toSeconds()))
				.exec();
			this.container.stop();
		}

		@Override
		public void kill() {
			this.container.getDockerClient().killContainerCmd(this.container.getContainerId()).exec();
			this.container.stop();
		}

		@Override
		public void pause() {
			this.container.getDockerClient().pauseContainerCmd(this.container.getContainerId()).exec();
		}

		@Override
		public void resume() {
			this.container.getDockerClient().unpauseContainerCmd(this.container.getContainerId()).exec();
		}

		@Override
		public String log() {
			return this.container.getLogs();
		}

	}

}
