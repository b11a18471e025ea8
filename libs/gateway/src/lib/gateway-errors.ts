import { Code, defineError, type StatusBody } from '@lorawan/errors';

export const ErrUnauthenticated = defineError('pkg/identityserver', 'unauthenticated', 'unauthenticated', Code.Unauthenticated);
export const ErrUnsupportedAuthorization = defineError('pkg/identityserver', 'unsupported_authorization', 'unsupported authorization method', Code.Unauthenticated);
export const ErrInvalidToken = defineError('pkg/auth', 'token', 'invalid token', Code.InvalidArgument);
export const ErrApiKeyNotFound = defineError('pkg/identityserver', 'api_key_not_found', 'API key not found', Code.Unauthenticated);

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
