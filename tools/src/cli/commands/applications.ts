import type { ApiClient } from '../client';
import { CliError } from '../errors';
import { isObject, type JsonObject } from '../split';

const APPLICATION_MASK = 'name,description,attributes,administrative_contact,technical_contact';

/** The user a key acts for (`GET /auth_info`): a user key's own user, or the admin key's. */
async function callerUserId(client: ApiClient): Promise<string> {
  const { body } = await client.get('/api/v3/auth_info');
  const apiKey = isObject(body.api_key) ? body.api_key : undefined;
  const ids = apiKey && isObject(apiKey.entity_ids) ? apiKey.entity_ids : undefined;
  const userIds = ids && isObject(ids.user_ids) ? ids.user_ids : undefined;
  if (typeof userIds?.user_id !== 'string') throw new CliError('this API key does not belong to a user: name the owner with --user USER-ID');
  return userIds.user_id;
}

/** `POST /users/{user}/applications`: the user becomes a collaborator with RIGHT_ALL. */
export async function createApplication(client: ApiClient, applicationId: string, options: { userId?: string; name?: string }): Promise<JsonObject> {
  const userId = options.userId ?? (await callerUserId(client));
  const application: JsonObject = { ids: { application_id: applicationId } };
  if (options.name !== undefined) application.name = options.name;
  return (await client.post(`/api/v3/users/${encodeURIComponent(userId)}/applications`, { application })).body;
}

export async function getApplication(client: ApiClient, applicationId: string): Promise<JsonObject> {
  return (await client.get(`/api/v3/applications/${encodeURIComponent(applicationId)}?field_mask=${APPLICATION_MASK}`)).body;
}

export async function listApplications(client: ApiClient, options: { limit?: number; page?: number }): Promise<{ applications: JsonObject[]; total?: number }> {
  let query = `?field_mask=${APPLICATION_MASK}`;
  if (options.limit !== undefined) query += `&limit=${options.limit}`;
  if (options.page !== undefined) query += `&page=${options.page}`;
  const res = await client.get(`/api/v3/applications${query}`);
  const applications = Array.isArray(res.body.applications) ? res.body.applications.filter(isObject) : [];
  const total = res.headers.get('x-total-count');
  return { applications, total: total === null ? undefined : Number(total) };
}

export async function deleteApplication(client: ApiClient, applicationId: string): Promise<JsonObject> {
  return (await client.delete(`/api/v3/applications/${encodeURIComponent(applicationId)}`)).body;
}

/** `POST /applications/{id}/api-keys`: the answer holds the secret (`key`), shown only this once. */
export async function createApiKey(
  client: ApiClient,
  applicationId: string,
  options: { rights: string[]; name?: string; expiresAt?: string },
): Promise<JsonObject> {
  const body: JsonObject = { rights: options.rights };
  if (options.name !== undefined) body.name = options.name;
  if (options.expiresAt !== undefined) body.expires_at = options.expiresAt;
  return (await client.post(`/api/v3/applications/${encodeURIComponent(applicationId)}/api-keys`, body)).body;
}
