/** The bootstrap admin user the IS creates, whose key the bench stacks are given (`ADMIN_USER_ID`). */
export const ADMIN_USER_ID = 'admin';

async function post(baseUrl: string, auth: Record<string, string>, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(baseUrl + path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${path}: HTTP ${res.status} ${text.slice(0, 2000)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * Creates the applications as the admin user (`POST /api/v3/users/admin/applications`) before any
 * of their devices: the IS refuses devices of applications that do not exist, and only as a
 * collaborator (the creator gets `RIGHT_ALL`) may the admin key read and write device keys.
 */
export async function createApplications(baseUrl: string, auth: Record<string, string>, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    await post(baseUrl, auth, `/api/v3/users/${ADMIN_USER_ID}/applications`, { application: { ids: { application_id: id }, name: `Benchmark ${id}` } });
  }
}

/** An API key of the application with these rights (`POST /api/v3/applications/{id}/api-keys`); returns the token (`NNSXS.…`). */
export async function createApplicationApiKey(
  baseUrl: string,
  auth: Record<string, string>,
  applicationId: string,
  name: string,
  rights: string[],
): Promise<string> {
  const body = await post(baseUrl, auth, `/api/v3/applications/${applicationId}/api-keys`, { name, rights });
  const key = body.key;
  if (typeof key !== 'string' || !key.startsWith('NNSXS.'))
    throw new Error(`POST /api/v3/applications/${applicationId}/api-keys: no key in ${JSON.stringify(body)}`);
  return key;
}
