// @lorawan/api's message classes read design-type metadata while they load.
import 'reflect-metadata';
import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { type Command, CommandLineError, parseCommandLine } from './args';
import { ApiClient } from './client';
import { createApiKey, createApplication, deleteApplication, getApplication, listApplications } from './commands/applications';
import { deleteDevice } from './commands/delete';
import { exportDevices } from './commands/export';
import { importDevices, validateDevices } from './commands/import';
import { getDevice } from './commands/get';
import { listDevices } from './commands/list';
import { RegistrationError, registerDevice } from './commands/register';
import { resolveConfig } from './config';
import { ApiError, CliError, describeApiError, UsageError } from './errors';
import { formatOf, inspectDeviceFile } from './device-file';
import { ImportReport, openForWriting } from './import-report';
import { Progress } from './progress';
import { REGISTRY_TITLES, setAllowedPaths } from './registries';
import { parseDescription } from './split';
import { SYNOPSIS, USAGE } from './usage';

/**
 * `npm run cli -- devices register|get|list|delete …`: registers devices across the IS, JS, NS and
 * AS from one JSON description, over HTTP like any TTS client. `simulate join` instead plays a
 * gateway and an OTAA device against the Gateway Server's UDP listener. Results (JSON) go to
 * stdout, progress and errors to stderr. Exit codes: 0 done, 1 failed, 2 usage.
 */

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function note(message: string): void {
  process.stderr.write(`${message}\n`);
}

function titles(registries: readonly string[]): string {
  return registries.join(', ') || 'none';
}

function readTextFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The description file (or stdin for `-`), parsed and checked. */
async function readDescription(source: string): Promise<ReturnType<typeof parseDescription>> {
  const name = source === '-' ? 'stdin' : source;
  let text: string;
  try {
    text = source === '-' ? await readStdin() : readFileSync(source, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new CliError(`cannot read ${name}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${name} is not valid JSON: ${(err as Error).message}`);
  }
  try {
    return parseDescription(json);
  } catch (err) {
    throw new CliError(`${name}: ${(err as Error).message}`);
  }
}

type ImportCommand = Extract<Command, { name: 'import' }>;

/**
 * `devices import`: the summary (JSON) to stdout, progress to stderr, one report line per line not
 * registered. Exit code 1 when a line failed (skipped ones are not failures).
 */
async function importFile(command: ImportCommand, client: ApiClient | undefined): Promise<void> {
  const format = formatOf(command.source, command.format);
  const { total } = await inspectDeviceFile(command.source, format);
  const reportPath = command.report ?? `${command.source}.report.jsonl`;
  const report = new ImportReport(reportPath);
  const progress = new Progress(command.dryRun ? 'validated' : 'imported', total, process.stderr);
  const options = { ...command, path: command.source, format };
  try {
    const summary = client
      ? await importDevices(client, options, setAllowedPaths(), { report, progress })
      : await validateDevices(options, { report, progress });
    progress.finish();
    print({ ...summary, report: reportPath });
    if (summary.failed > 0) throw new CliError(`${summary.failed} of ${summary.lines} lines failed: see ${reportPath}`);
  } finally {
    report.close();
  }
}

/** `devices export`: JSON lines to stdout or `--output`, progress to stderr. */
async function exportApplication(command: Extract<Command, { name: 'export' }>, client: ApiClient): Promise<void> {
  const out = command.output ? createWriteStream('', { fd: openForWriting(command.output, 'the export') }) : process.stdout;
  const progress = new Progress('exported', undefined, process.stderr);
  const write = async (line: string) => {
    if (!out.write(line)) await once(out, 'drain');
  };
  const count = await exportDevices(
    client,
    { applicationId: command.applicationId, withKeys: command.withKeys, pageSize: command.pageSize },
    { write, progress },
  );
  progress.finish();
  if (out !== process.stdout) await new Promise<void>((res, rej) => out.end((err?: Error | null) => (err ? rej(err) : res())));
  note(`exported ${count} devices of ${command.applicationId}${command.withKeys ? ' with their keys' : ' (no keys: --with-keys adds them)'}`);
}

async function execute(command: Exclude<Command, { name: 'simulate join' }>, client: ApiClient): Promise<void> {
  switch (command.name) {
    case 'help':
      return;
    case 'register': {
      const { device, ref } = await readDescription(command.source);
      const result = await registerDevice(client, device, ref, setAllowedPaths());
      print(result.device);
      note(`registered ${ref.applicationId}/${ref.deviceId} in ${titles(result.registries)}`);
      return;
    }
    case 'get':
      print(await getDevice(client, command.ref));
      return;
    case 'list': {
      const result = await listDevices(client, command.applicationId, command);
      print({ end_devices: result.end_devices });
      note(`X-Total-Count: ${result.total ?? 'unknown'} (this page: ${result.end_devices.length})`);
      return;
    }
    case 'import':
      return importFile(command, client);
    case 'export':
      return exportApplication(command, client);
    case 'delete': {
      const deleted = await deleteDevice(client, command.ref);
      print({});
      note(`deleted ${command.ref.applicationId}/${command.ref.deviceId} from ${titles(deleted)}`);
      return;
    }
    case 'applications create':
      print(await createApplication(client, command.applicationId, { userId: command.userId, name: command.appName }));
      return;
    case 'applications get':
      print(await getApplication(client, command.applicationId));
      return;
    case 'applications list': {
      const result = await listApplications(client, command);
      print({ applications: result.applications });
      note(`X-Total-Count: ${result.total ?? 'unknown'} (this page: ${result.applications.length})`);
      return;
    }
    case 'applications delete':
      print(await deleteApplication(client, command.applicationId));
      note(`deleted application ${command.applicationId}`);
      return;
    case 'api-keys create':
      print(await createApiKey(client, command.applicationId, { name: command.keyName, rights: command.rights, expiresAt: command.expiresAt }));
      note('the key is shown only now: store it');
      return;
  }
}

async function run(argv: string[]): Promise<void> {
  const { command, flags } = parseCommandLine(argv);
  if (command.name === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (command.name === 'simulate join') {
    // Loaded only here: the simulator comes with the test kit, which other commands do not need.
    const { simulateJoin } = await import('./commands/simulate');
    print(await simulateJoin(command.options, note));
    return;
  }
  // A dry run reads only the file: no server, no key.
  if (command.name === 'import' && command.dryRun) return importFile(command, undefined);
  const config = resolveConfig({ flags, env: process.env, readFile: readTextFile });
  await execute(command, new ApiClient(config.baseUrl, config.apiKey));
}

/** The request, status, TTS message and cause chain; the full body only for registrations. */
function reportApiError(err: ApiError): void {
  const [first, ...rest] = describeApiError(err);
  note(`error: ${first}`);
  for (const line of rest) note(line);
}

function reportRegistrationError(err: RegistrationError): void {
  const { ref, step, error, rollback } = err;
  const device = `${ref.applicationId} ${ref.deviceId}`;
  note(`error: registering ${ref.applicationId}/${ref.deviceId} failed at the ${REGISTRY_TITLES[step]} (${step})`);
  for (const line of describeApiError(error)) note(line);
  if (step === 'IS' && error.outcomeUnknown) note(`the Identity Server may have created the device anyway: check with devices get ${device}`);
  if (rollback.deleted.length > 0) note(`rolled back: deleted from ${titles(rollback.deleted)}`);
  for (const { registry, error: e } of rollback.failed) {
    note(`rollback: deleting from the ${REGISTRY_TITLES[registry]} failed: ${describeApiError(e).join('\n')}`);
  }
  if (rollback.failed.length > 0) {
    note(`the device is left in ${titles(rollback.failed.map((f) => f.registry))}; remove it with: devices delete ${device}`);
  }
  // The original error body as the server sent it (correlation ID, attributes), for bug reports.
  if (error.body) note(JSON.stringify(error.body, null, 2));
}

/** Expected failures get a message and an exit code; only a bug shows a stack trace. */
function report(err: unknown): number {
  if (err instanceof CommandLineError) {
    note(`error: ${err.message}\n`);
    process.stderr.write(SYNOPSIS);
    return 2;
  }
  if (err instanceof UsageError) {
    note(`error: ${err.message}`);
    return 2;
  }
  if (err instanceof RegistrationError) {
    reportRegistrationError(err);
    return 1;
  }
  if (err instanceof ApiError) {
    reportApiError(err);
    return 1;
  }
  if (err instanceof CliError) {
    note(`error: ${err.message}`);
    return 1;
  }
  note(`unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return 1;
}

run(process.argv.slice(2)).then(
  () => {
    process.exitCode = 0;
  },
  (err: unknown) => {
    process.exitCode = report(err);
  },
);
