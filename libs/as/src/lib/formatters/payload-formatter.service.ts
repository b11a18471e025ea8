import { Inject, Injectable } from '@nestjs/common';
import { isJsonObject, type JsonObject } from '@lorawan/api';
import { isStackError, type StackError } from '@lorawan/errors';
import { decodeLpp, decodeLppDownlink, encodeLppDownlink } from './cayenne-lpp';
import { ErrEntrypointNotFound, ErrOutput, ErrOutputErrors, ErrScriptRuntime, ErrUnsupportedFormatter } from './formatter.errors';
import { FormatterWorkerPool } from './formatter-worker-pool.service';

/** Whose script runs: the pool bounds the calls of each application. */
interface ApplicationScoped {
  applicationId: string;
}

export interface UplinkInput extends ApplicationScoped {
  bytes: Uint8Array;
  fPort: number;
  recvTime?: Date;
}

export interface DownlinkInput extends ApplicationScoped {
  data: JsonObject;
  fPort: number;
}

export interface DecodedPayload {
  data?: JsonObject;
  warnings: string[];
  errors: string[];
}

export interface EncodedPayload {
  bytes?: Uint8Array;
  fPort?: number;
  warnings: string[];
  errors: string[];
}

/** Failed: `errors` non-empty, `error` the typed error; otherwise the result. */
export type Formatted<T> = T & { error?: StackError };

const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);

/**
 * Payload formatters of the AS (TTS `pkg/messageprocessors`): FORMATTER_NONE, FORMATTER_JAVASCRIPT
 * (TTS's script API: `decodeUplink(input)` → `{data, warnings?, errors?}`, `encodeDownlink(input)`
 * → `{bytes, fPort?, warnings?, errors?}`, legacy `Decoder(bytes, fPort)` / `Encoder(data, fPort)`),
 * FORMATTER_CAYENNELPP. Scripts run in the FormatterWorkerPool, bounded per application. Failures
 * are returned (`errors` plus the typed `error`), never thrown.
 */
@Injectable()
export class PayloadFormatter {
  constructor(@Inject(FormatterWorkerPool) private readonly pool: FormatterWorkerPool) {}

  async decodeUplink(input: UplinkInput, formatter: string | undefined, parameter: string | undefined): Promise<Formatted<DecodedPayload> | undefined> {
    switch (formatter ?? 'FORMATTER_NONE') {
      case 'FORMATTER_NONE':
        return undefined;
      case 'FORMATTER_CAYENNELPP':
        return this.guard(() => ({ data: decodeLpp(input.bytes), warnings: [], errors: [] }));
      case 'FORMATTER_JAVASCRIPT':
        return this.guardAsync(async () => {
          const out = await this.pool.run(input.applicationId, {
            script: parameter ?? '',
            input: JSON.stringify({
              bytes: [...input.bytes],
              fPort: input.fPort,
              ...(input.recvTime ? { recvTime: input.recvTime.toISOString() } : {}),
            }),
            entry: `typeof decodeUplink === 'function' ? decodeUplink(input) : typeof Decoder === 'function' ? { data: Decoder(input.bytes, input.fPort) } : { __missing: 'decodeUplink' }`,
          });
          return this.decoded(out);
        });
      default:
        return this.failed(ErrUnsupportedFormatter.with({ formatter: String(formatter) }));
    }
  }

  async encodeDownlink(input: DownlinkInput, formatter: string | undefined, parameter: string | undefined): Promise<Formatted<EncodedPayload> | undefined> {
    switch (formatter ?? 'FORMATTER_NONE') {
      case 'FORMATTER_NONE':
        return undefined;
      case 'FORMATTER_CAYENNELPP':
        return this.guard(() => ({ bytes: encodeLppDownlink(input.data), fPort: input.fPort, warnings: [], errors: [] }));
      case 'FORMATTER_JAVASCRIPT':
        return this.guardAsync(async () => {
          const out = await this.pool.run(input.applicationId, {
            script: parameter ?? '',
            input: JSON.stringify({ data: input.data, fPort: input.fPort }),
            entry: `typeof encodeDownlink === 'function' ? encodeDownlink(input) : typeof Encoder === 'function' ? { bytes: Encoder(input.data, input.fPort) } : { __missing: 'encodeDownlink' }`,
          });
          return this.encoded(out, input.fPort);
        });
      default:
        return this.failed(ErrUnsupportedFormatter.with({ formatter: String(formatter) }));
    }
  }

  /**
   * Downlink bytes back to data, for listing the queue and the Network Server's downlink reports
   * (TTS runs `decodeDownlink({bytes, fPort})` of scripts, and CayenneLPP): undefined without a
   * formatter (or one that cannot decode downlinks), else the data and warnings, or the failure
   * (`error`), which leaves the downlink without `decoded_payload`.
   */
  async decodeDownlink(
    input: ApplicationScoped & { bytes: Uint8Array; fPort: number },
    formatter: string | undefined,
    parameter: string | undefined,
  ): Promise<Formatted<DecodedPayload> | undefined> {
    switch (formatter ?? 'FORMATTER_NONE') {
      case 'FORMATTER_CAYENNELPP':
        return this.guard(() => ({ data: decodeLppDownlink(input.bytes), warnings: [], errors: [] }));
      case 'FORMATTER_JAVASCRIPT':
        return this.guardAsync(async () => {
          const result = await this.pool.run(input.applicationId, {
            script: parameter ?? '',
            input: JSON.stringify({ bytes: [...input.bytes], fPort: input.fPort }),
            entry: `typeof decodeDownlink === 'function' ? decodeDownlink(input) : { __missing: 'decodeDownlink' }`,
          });
          return this.decoded(result, 'decodeDownlink');
        });
      default:
        return undefined;
    }
  }

  private decoded(out: unknown, entrypoint = 'decodeUplink'): Formatted<DecodedPayload> {
    if (!isJsonObject(out)) return this.failed(ErrOutput.with({ reason: `${entrypoint} must return an object` }));
    if (typeof out.__missing === 'string') return this.failed(ErrEntrypointNotFound.with({ name: out.__missing }));
    const warnings = stringList(out.warnings);
    const errors = stringList(out.errors);
    if (errors.length) return { warnings, errors, error: ErrOutputErrors.with({ errors: errors.join(', ') }) };
    if (out.data !== undefined && !isJsonObject(out.data)) return this.failed(ErrOutput.with({ reason: '`data` must be an object' }));
    return { data: (out.data as JsonObject | undefined) ?? {}, warnings, errors };
  }

  private encoded(out: unknown, inputFPort: number): Formatted<EncodedPayload> {
    if (!isJsonObject(out)) return this.failed(ErrOutput.with({ reason: 'encodeDownlink must return an object' }));
    if (typeof out.__missing === 'string') return this.failed(ErrEntrypointNotFound.with({ name: out.__missing }));
    const warnings = stringList(out.warnings);
    const errors = stringList(out.errors);
    if (errors.length) return { warnings, errors, error: ErrOutputErrors.with({ errors: errors.join(', ') }) };
    const bytes = out.bytes;
    if (!Array.isArray(bytes) || !bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
      return this.failed(ErrOutput.with({ reason: '`bytes` must be a list of integers 0..255' }));
    }
    const fPort = out.fPort ?? inputFPort;
    if (!Number.isInteger(fPort) || (fPort as number) < 0 || (fPort as number) > 255)
      return this.failed(ErrOutput.with({ reason: '`fPort` must be an integer 0..255' }));
    return { bytes: Uint8Array.from(bytes as number[]), fPort: fPort as number, warnings, errors };
  }

  private failed(error: StackError): Formatted<DecodedPayload & EncodedPayload> {
    return { warnings: [], errors: [error.message], error };
  }

  private guard<T extends DecodedPayload | EncodedPayload>(fn: () => T): Formatted<T> {
    try {
      return fn();
    } catch (err) {
      return this.failed(isStackError(err) ? err : ErrScriptRuntime.with({ message: (err as Error).message })) as Formatted<T>;
    }
  }

  private async guardAsync<T extends DecodedPayload | EncodedPayload>(fn: () => Promise<Formatted<T>>): Promise<Formatted<T>> {
    try {
      return await fn();
    } catch (err) {
      return this.failed(isStackError(err) ? err : ErrScriptRuntime.with({ message: (err as Error).message })) as Formatted<T>;
    }
  }
}
