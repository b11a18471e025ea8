import 'reflect-metadata';
import { type INestApplicationContext, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import { ComponentModule, type ComponentOptions } from './component.module';
import { HealthService } from './health.service';
import { serveHealth } from './health-http';
import { createLogger } from './logger';

export interface RunningComponent {
  app: INestApplicationContext;
  close(): Promise<void>;
}

/**
 * Starts one component (its own Nest application context, so components in one process stay
 * isolated exactly as they are in separate processes) on the given transport.
 */
export async function startComponent(feature: Type<unknown>, options: ComponentOptions): Promise<RunningComponent> {
  @Module({ imports: [ComponentModule.forRoot(options), feature] })
  class RootModule {}
  Object.defineProperty(RootModule, 'name', { value: `${options.component.toUpperCase()}RootModule` });

  const app = await NestFactory.createApplicationContext(RootModule, { logger: createLogger(options.config, options.component), abortOnError: false });
  await app.init();
  let health: Server | undefined;
  if (options.config.healthPort) health = await serveHealth(app.get(HealthService), options.config.healthPort);
  return {
    app,
    close: async () => {
      health?.close();
      await app.close();
    },
  };
}
