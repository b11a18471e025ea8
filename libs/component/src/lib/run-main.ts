import { Logger } from '@nestjs/common';

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
