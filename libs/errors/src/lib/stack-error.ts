import { randomUUID } from 'node:crypto';
import { type Code } from './codes';
import { type ErrorDetails, ERROR_DETAILS_TYPE, type StatusBody, type TypedDetail } from './error-details';

export type ErrorAttributes = Record<string, unknown>;

/**
 * A registered error: `namespace:name`, a canonical code and a message format with `{attribute}`
 * placeholders. Define each once (per component, in its `errors.ts`) and raise it with `.with()`.
 */
export class ErrorDefinition {
  constructor(
    readonly namespace: string,
    readonly name: string,
    readonly messageFormat: string,
    readonly code: Code,
    /** The HTTP status, where the code's (`httpStatusFromCode`) does not say it (a body too large is 413). */
    readonly httpStatus?: number,
  ) {}

  /** Creates an error instance with attributes (all placeholders are public) and an optional cause. */
  with(attributes: ErrorAttributes = {}, cause?: StackError | ErrorDetails): StackError {
    return new StackError(this, attributes, cause);
  }

  /** Whether `err` is an instance of this definition (also after crossing the transport). */
  matches(err: unknown): err is StackError {
    return err instanceof StackError && err.namespace === this.namespace && err.errorName === this.name;
  }
}

export function defineError(namespace: string, name: string, messageFormat: string, code: Code, options: { httpStatus?: number } = {}): ErrorDefinition {
  return new ErrorDefinition(namespace, name, messageFormat, code, options.httpStatus);
}

export function formatMessage(format: string, attributes: ErrorAttributes | undefined): string {
  return format.replace(/\{([a-zA-Z0-9_]+)\}/g, (whole, key: string) => {
    if (!attributes || !(key in attributes)) return whole;
    const value = attributes[key];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** An error with a definition; serialisable as ErrorDetails, so it survives the transport. */
export class StackError extends Error {
  readonly namespace: string;
  readonly errorName: string;
  readonly messageFormat: string;
  readonly code: Code;
  readonly correlationId: string;
  readonly details?: ErrorDetails;
  readonly httpStatus?: number;
  /** Typed messages about the error (TTS `WithDetails`): they cross the transport in the ErrorDetails' `details`. */
  readonly typedDetails?: readonly TypedDetail[];

  constructor(
    definition: Pick<ErrorDefinition, 'namespace' | 'name' | 'messageFormat' | 'code'> & { httpStatus?: number },
    readonly attributes: ErrorAttributes = {},
    cause?: StackError | ErrorDetails,
    correlationId: string = randomUUID().replace(/-/g, ''),
    typedDetails?: readonly TypedDetail[],
  ) {
    super(formatMessage(definition.messageFormat, attributes));
    this.name = 'StackError';
    this.namespace = definition.namespace;
    this.errorName = definition.name;
    this.messageFormat = definition.messageFormat;
    this.code = definition.code;
    this.httpStatus = definition.httpStatus;
    this.correlationId = correlationId;
    if (cause) this.details = cause instanceof StackError ? cause.toDetails() : cause;
    if (typedDetails?.length) this.typedDetails = typedDetails;
  }

  /** This error with typed messages about it (TTS `WithDetails`), e.g. what a client needs to retry. */
  withDetails(...typedDetails: TypedDetail[]): StackError {
    const definition = { namespace: this.namespace, name: this.errorName, messageFormat: this.messageFormat, code: this.code, httpStatus: this.httpStatus };
    return new StackError(definition, this.attributes, this.details, this.correlationId, [...(this.typedDetails ?? []), ...typedDetails]);
  }

  /** The first of the error's typed messages with this `@type`, if any. */
  detailOfType(type: string): TypedDetail | undefined {
    return this.typedDetails?.find((d) => d['@type'] === type);
  }

  /** `error:<namespace>:<name> (<formatted message>)`, the TTS `message` string. */
  get fullMessage(): string {
    return `error:${this.namespace}:${this.errorName} (${this.message})`;
  }

  toDetails(): ErrorDetails {
    const details: ErrorDetails = {
      namespace: this.namespace,
      name: this.errorName,
      message_format: this.messageFormat,
      correlation_id: this.correlationId,
      code: this.code,
    };
    if (Object.keys(this.attributes).length > 0) details.attributes = this.attributes;
    if (this.details) details.cause = this.details;
    if (this.typedDetails) details.details = [...this.typedDetails];
    return details;
  }

  static fromDetails(details: ErrorDetails): StackError {
    return new StackError(
      { namespace: details.namespace, name: details.name, messageFormat: details.message_format, code: details.code },
      details.attributes ?? {},
      details.cause,
      details.correlation_id,
      details.details,
    );
  }

  /** The `google.rpc.Status` JSON the HTTP API answers with. */
  toStatus(): StatusBody {
    return { code: this.code, message: this.fullMessage, details: [{ '@type': ERROR_DETAILS_TYPE, ...this.toDetails() }] };
  }
}

export function isStackError(err: unknown): err is StackError {
  return err instanceof StackError;
}
