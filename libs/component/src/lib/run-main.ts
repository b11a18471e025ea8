import { Logger, type LoggerService, type Type } from '@nestjs/common';
import type { Logger as Pino } from 'pino';
import type { ComponentName } from '@lorawan/api';
import { loadConfig, type StackConfig } from '@lorawan/config';
import { collectProcessMetrics, createRootLogger, nestLogger } from '@lorawan/observability';
import { connectMessaging } from '@lorawan/transport';
import { startComponent } from './start-component';

/** What a process runs: it stops in two steps, readiness first. */
export interface RunningProcess {
  /** Readiness turns false (load balancers and the gateway stop choosing this process). */
  beginShutdown(): void;
  /** Stops accepting, finishes what is in flight (bounded by SHUTDOWN_GRACE_MS), closes everything. */
  close(): Promise<void>;
}

export interface ProcessRuntime {
  config: StackConfig;
  /** Nest's logger for the process's applications (pino JSON or text lines). */
  logger: LoggerService;
}

/** Beyond the grace period, how long closing may take before the process exits anyway. */
const CLOSE_MARGIN_MS = 5000;

/**
 * Runs a process entry point: validated config, the process's logger (pino; LOG_FORMAT, LOG_LEVEL)
 * and process metrics, then `start`. On SIGTERM/SIGINT (Kubernetes stops pods with SIGTERM) it
 * turns readiness false, stops accepting, lets what is in flight finish (SHUTDOWN_GRACE_MS),
 * closes databases and connections, and exits 0 (1 if that takes too long or fails). A failure to
 * start exits 1.
 */
export function runMain(name: string, env: Record<string, string | undefined>, start: (runtime: ProcessRuntime) => Promise<RunningProcess>): void {
  let config: StackConfig;
  let root: Pino;
  try {
    config = loadConfig(env);
    root = createRootLogger({ level: config.logLevel, format: config.logFormat }, { component: name });
  } catch (err) {
    process.stderr.write(`${name}: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const logger = nestLogger(root);
  Logger.overrideLogger(logger);
  const log = new Logger(name);
  collectProcessMetrics();
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled promise rejection'));
  process.on('uncaughtException', (err) => {
    root.fatal({ err }, 'uncaught exception; exiting');
    process.exit(1);
  });

  start({ config, logger }).then(
    (running) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.log({ signal, grace_ms: config.shutdownGraceMs }, `${signal} received, shutting down`);
        running.beginShutdown();
        const deadline = setTimeout(() => {
          log.error({ signal }, `shutdown took longer than ${config.shutdownGraceMs + CLOSE_MARGIN_MS} ms; exiting`);
          process.exit(1);
        }, config.shutdownGraceMs + CLOSE_MARGIN_MS);
        deadline.unref();
        running.close().then(
          () => {
            log.log('shut down');
            process.exit(0);
          },
          (err: unknown) => {
            log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    },
    (err: unknown) => {
      log.error({ err }, 'failed to start');
      process.exit(1);
    },
  );
}

/**
 * The entry point of a component process (`apps/<component>/src/main.ts`): validated config, a
 * NATS connection, the component as a Nest microservice, and an orderly stop on SIGTERM.
 */
export function runComponentMain(component: ComponentName, feature: Type<unknown>, env: Record<string, string | undefined>): void {
  runMain(component, env, async ({ config, logger }) => {
    if (!config.natsUrl) throw new Error(`${component} on its own needs NATS_URL; \`npm start\` runs every component embedded in one process`);
    const messaging = await connectMessaging(config, component);
    const running = await startComponent(feature, { component, config, messaging, logger });
    new Logger(component).log({ health_port: config.healthPort }, `${component} serving on NATS`);
    return {
      beginShutdown: () => running.beginShutdown(),
      close: async () => {
        await running.close();
        await messaging.close();
      },
    };
  });
}
