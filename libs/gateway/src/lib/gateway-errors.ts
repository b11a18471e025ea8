import type { Code, StatusBody } from '@lorawan/errors';

/** The credential errors are shared with the Identity Server: defined once in @lorawan/errors. */
export { ErrApiKeyNotFound, ErrInvalidToken, ErrUnauthenticated, ErrUnsupportedAuthorization } from '@lorawan/errors';

/**
 * Errors the HTTP layer itself produces (bad JSON, bad query parameter, unknown route) are plain
 * statuses without details, as grpc-gateway writes them.
 */
export class PlainStatus extends Error {
  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }

  toStatus(): StatusBody {
    return { code: this.code, message: this.message };
  }
}
