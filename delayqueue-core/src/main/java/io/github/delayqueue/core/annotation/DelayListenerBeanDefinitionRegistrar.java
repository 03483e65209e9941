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

import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the {@link DelayListenerAnnotationBeanPostProcessor} and the
 * {@link DelayListenerEndpointRegistry}, unless already registered (so that
 * {@link EnableDelayListeners} and Spring Boot's auto-configuration can both apply).
 */
public class DelayListenerBeanDefinitionRegistrar implements ImportBeanDefinitionRegistrar {

	/** The bean name of the annotation post-processor. */
	public static final String ANNOTATION_PROCESSOR_BEAN_NAME = "io.github.delayqueue.core.annotation.internalDelayListenerAnnotationProcessor";

	/** The bean name of the endpoint registry. */
	public static final String ENDPOINT_REGISTRY_BEAN_NAME = "delayListenerEndpointRegistry";

	/** The bean name of the default container factory. */
	public static final String DEFAULT_CONTAINER_FACTORY_BEAN_NAME = "delayListenerContainerFactory";

	@Override
	public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
		if (!registry.containsBeanDefinition(ANNOTATION_PROCESSOR_BEAN_NAME)) {
			RootBeanDefinition definition = new RootBeanDefinition(DelayListenerAnnotationBeanPostProcessor.class);
			definition.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			registry.registerBeanDefinition(ANNOTATION_PROCESSOR_BEAN_NAME, definition);
		}
		if (!registry.containsBeanDefinition(ENDPOINT_REGISTRY_BEAN_NAME)) {
			RootBeanDefinition definition = new RootBeanDefinition(DelayListenerEndpointRegistry.class);
			definition.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			registry.registerBeanDefinition(ENDPOINT_REGISTRY_BEAN_NAME, definition);
		}
	}

}
