/** The API key lives in sessionStorage only: never in a URL, a cookie or a log; gone when the tab closes or on sign-out. */
const KEY_ITEM = 'lorawan-console.api-key';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY_ITEM),
  signIn: (key: string): void => sessionStorage.setItem(KEY_ITEM, key.trim()),
  signOut: (): void => sessionStorage.removeItem(KEY_ITEM),
};

/** An error detail of the API's status (`ttn.lorawan.v3.ErrorDetails`). */
export interface ErrorDetail {
  '@type'?: string;
  namespace?: string;
  name?: string;
  message_format?: string;
  attributes?: Record<string, unknown>;
  cause?: ErrorDetail;
  code?: number;
  correlation_id?: string;
}

/** The API's error as it gave it: HTTP status, canonical `code`, `message` and `details`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }

  /** `namespace:name` of the first detail (e.g. `pkg/identityserver/store:end_device_not_found`). */
  get id(): string | undefined {
    const d = this.details[0];
    return d?.namespace && d.name ? `${d.namespace}:${d.name}` : undefined;
  }

  static async from(res: Response): Promise<ApiError> {
    const text = await res.text();
    try {
      const body = JSON.parse(text) as {
        code?: number;
        message?: string;
        details?: ErrorDetail[];
        error?: { code?: number; message?: string; details?: ErrorDetail[] };
      };
      const status = body.error ?? body;
      return new ApiError(res.status, status.code, status.message ?? res.statusText, status.details ?? []);
    } catch {
      return new ApiError(res.status, undefined, text.trim() || res.statusText);
    }
  }
}

export type Query = Record<string, string | number | string[] | undefined>;

export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, String(v));
  }
  const qs = params.toString();
  return `/api/v3${path}${qs ? `?${qs}` : ''}`;
}

export function authHeaders(): Record<string, string> {
  const key = session.key();
  return key ? { Authorization: `Bearer ${key}` } : {};
}

export interface ApiResponse<T> {
  body: T;
  headers: Headers;
}

/** One API call; a non-2xx answer throws the API's error as an ApiError. */
export async function api<T>(method: string, path: string, options: { query?: Query; body?: unknown; signal?: AbortSignal } = {}): Promise<ApiResponse<T>> {
  const res = await fetch(apiUrl(path, options.query), {
    method,
    headers: { ...authHeaders(), ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  if (!res.ok) throw await ApiError.from(res);
  return { body: (await res.json()) as T, headers: res.headers };
}

export const get = async <T>(path: string, query?: Query): Promise<T> => (await api<T>('GET', path, { query })).body;
