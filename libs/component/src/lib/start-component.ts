import 'reflect-metadata';
import type { Server } from 'node:http';
import { type INestMicroservice, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ComponentModule, type ComponentOptions } from './component.module';
import { serveOperations } from './health/health-http';
import { HealthService } from './health/health.service';

export interface RunningComponent {
  app: INestMicroservice;
  /** Readiness turns false (first step of a shutdown). */
  beginShutdown(): void;
  /** Stops serving (draining what is in flight, up to SHUTDOWN_GRACE_MS), closes its databases. */
  close(): Promise<void>;
}

/**
 * Starts one component as a Nest microservice (its own application, so components in one process
 * stay isolated exactly as they are in separate processes) on the messaging's transport strategy,
 * with its operations port (HEALTH_PORT: health, readiness, metrics) when configured.
 */
export async function startComponent(feature: Type<unknown>, options: ComponentOptions): Promise<RunningComponent> {
  const strategy = options.messaging.server(options.component);
  @Module({ imports: [ComponentModule.forRoot(options, strategy), feature] })
  class RootModule {}
  Object.defineProperty(RootModule, 'name', { value: `${options.component.toUpperCase()}RootModule` });

  const app = await NestFactory.createMicroservice(RootModule, {
    strategy,
    logger: options.logger ?? ['error', 'warn'],
    abortOnError: false,
  });
  const health = app.get(HealthService);
  let operations: Server | undefined;
  try {
    await app.listen();
    if (options.config.healthPort) operations = await serveOperations(health, options.config.healthPort);
  } catch (err) {
    await app.close().catch(() => undefined);
    throw err;
  }
  return {
    app,
    beginShutdown: () => health.beginShutdown(),
    close: async () => {
      health.beginShutdown();
      await app.close();
      await closeServer(operations);
    },
  };
}

/** Closes an HTTP server, including idle keep-alive connections (a metrics scraper's). */
export function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
