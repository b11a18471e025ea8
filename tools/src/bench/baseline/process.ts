/**
 * How a baseline process runs: `main` started, its failure fatal, and `close` run once on SIGTERM
 * or SIGINT before the process exits (the baseline's processes are as plain as the measurement
 * needs: no Nest, no stack libraries).
 */
export function runBaselineProcess(main: () => Promise<() => Promise<void>>): void {
  main()
    .then((close) => {
      const stop = async () => {
        await close();
        process.exit(0);
      };
      process.once('SIGTERM', () => void stop());
      process.once('SIGINT', () => void stop());
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
