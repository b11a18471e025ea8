import { Code, defineError } from '@lorawan/errors';

/**
 * Errors of the IS's access side (TTS names). The credential errors the gateway shares
 * (`unauthenticated`, `unsupported_authorization`, `token`, `api_key_not_found`) are in
 * @lorawan/errors; the entities' `<kind>_not_found` in `../errors.ts`.
 */
export const ErrInvalidAuthorization = defineError('pkg/identityserver', 'invalid_authorization', 'invalid authorization', Code.Unauthenticated);
export const ErrApiKeyExpired = defineError('pkg/identityserver', 'api_key_expired', 'API key expired', Code.Unauthenticated);
/** An API key ID that the entity in the request does not have (TTS `store.ErrAPIKeyNotFound`). */
export const ErrStoreApiKeyNotFound = defineError('pkg/identityserver/store', 'api_key_not_found', 'API key not found', Code.NotFound);
export const ErrApiKeyConcurrentUpdate = defineError(
  'pkg/identityserver/store',
  'api_key_concurrent_update',
  'API key `{api_key_id}` was changed concurrently; try again',
  Code.Aborted,
);
