import { Code } from './codes';
import { defineError } from './stack-error';

/**
 * Credential errors (TTS `pkg/identityserver/entity_access.go`, `pkg/auth/auth.go`), shared by the
 * gateway (which rejects a request without credentials before asking anyone) and the Identity
 * Server (which resolves the credentials). All are 401 except a malformed token, which TTS answers
 * with InvalidArgument (400).
 */
export const ErrUnauthenticated = defineError('pkg/identityserver', 'unauthenticated', 'unauthenticated', Code.Unauthenticated);
export const ErrUnsupportedAuthorization = defineError(
  'pkg/identityserver',
  'unsupported_authorization',
  'unsupported authorization method',
  Code.Unauthenticated,
);
export const ErrInvalidToken = defineError('pkg/auth', 'token', 'invalid token', Code.InvalidArgument);
export const ErrApiKeyNotFound = defineError('pkg/identityserver', 'api_key_not_found', 'API key not found', Code.Unauthenticated);
