import { ApiError, type TtsStatus } from './errors';
import { isObject, type JsonObject } from './split';

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The JSON object answered (`{}` for an empty body). */
  body: JsonObject;
}

/** Sending a request and waiting for its answer; the gateway itself gives up on a component after 10 s. */
const TIMEOUT_MS = 60_000;

/** What fetch's "fetch failed" TypeError hides in `cause` (ECONNREFUSED, ENOTFOUND, …). */
function networkReason(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.message ?? cause?.code ?? (err instanceof Error ? err.message : String(err));
}

/** What the commands use of the client: a test passes a fake. */
export type Http = Pick<ApiClient, 'get' | 'post' | 'put' | 'delete'>;

/**
 * A minimal HTTP client of the stack's `/api/v3` (the gateway), like any TTS client: bearer API
 * key, JSON bodies, TTS error bodies turned into `ApiError`.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  get(path: string): Promise<ApiResponse> {
    return this.request('GET', path);
  }

  post(path: string, body: unknown): Promise<ApiResponse> {
    return this.request('POST', path, body);
  }

  put(path: string, body: unknown): Promise<ApiResponse> {
    return this.request('PUT', path, body);
  }

  delete(path: string): Promise<ApiResponse> {
    return this.request('DELETE', path);
  }

  async request(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const request = `${method} ${path.split('?')[0]}`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      text = await res.text();
    } catch (err) {
      throw new ApiError(request, undefined, undefined, `cannot reach ${this.baseUrl}: ${networkReason(err)}`);
    }
    let json: unknown;
    try {
      json = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const status = isObject(json) ? (json as TtsStatus) : undefined;
      const message = typeof status?.message === 'string' ? status.message : text.trim().slice(0, 500) || res.statusText;
      throw new ApiError(request, res.status, status, `HTTP ${res.status}: ${message}`);
    }
    if (!isObject(json)) throw new ApiError(request, res.status, undefined, `HTTP ${res.status} with a body that is not a JSON object: ${text.slice(0, 200)}`);
    return { status: res.status, headers: res.headers, body: json };
  }
}
