import { Logger, type Type } from '@nestjs/common';
import type { ComponentName } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { createTransport } from '@lorawan/transport';
import { startComponent } from './start-component';

/**
 * Runs a process entry point: starts, then closes everything on SIGTERM/SIGINT (Kubernetes
 * stops pods with SIGTERM). A failure to start exits with status 1.
 */
export function runMain(name: string, start: () => Promise<() => Promise<void>>): void {
  const logger = new Logger(name);
  start().then(
    (stop) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.log(`${signal} received, shutting down`);
        stop().then(
          () => process.exit(0),
          (err: unknown) => {
            logger.error(`shutdown failed: ${String(err)}`);
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    },
    (err: unknown) => {
      logger.error(`failed to start: ${(err as Error)?.stack ?? String(err)}`);
      process.exit(1);
    },
  );
}

/**
 * The entry point of a component process (`apps/<component>/src/main.ts`): validated config,
 * NATS transport, the component, and an orderly stop on SIGTERM.
 */
export function runComponentMain(component: ComponentName, feature: Type<unknown>, env: Record<string, string | undefined>): void {
  runMain(component, async () => {
    const config = loadConfig(env);
    if (!config.natsUrl) throw new Error(`${component} on its own needs NATS_URL; \`npm start\` runs every component embedded in one process`);
    const transport = await createTransport(config, component);
    const running = await startComponent(feature, { component, config, transport });
    return async () => {
      await running.close();
      await transport.close();
    };
  });
}
