import http from 'node:http';
import https from 'node:https';
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

/** An HTTP answer, whatever its status. */
interface Answer {
  status: number;
  statusText: string;
  ok: boolean;
  headers: Headers;
  text: string;
}

class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** Why a request got no answer: a timeout, or the socket's error (ECONNREFUSED, ENOTFOUND, …). */
function networkReason(err: unknown): string {
  if (err instanceof TimeoutError) return `no answer within ${TIMEOUT_MS / 1000} s`;
  const e = err as { code?: string; message?: string } | undefined;
  return e?.message || e?.code || String(err);
}

/** What the commands use of the client: a test passes a fake. */
export type Http = Pick<ApiClient, 'get' | 'post' | 'put' | 'delete'>;

/**
 * A minimal HTTP client of the stack's `/api/v3` (the gateway), like any TTS client: bearer API
 * key, JSON bodies, TTS error bodies turned into `ApiError`.
 */
export class ApiClient {
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

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
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    let res: Answer;
    try {
      res = await this.send(method, path, headers, payload);
    } catch (err) {
      throw new ApiError(request, undefined, undefined, `cannot reach ${this.baseUrl}: ${networkReason(err)}`);
    }
    const { text } = res;
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

  /**
   * One exchange on a kept-alive connection (node's http/https agents: an import sends thousands
   * of large bodies, and fetch's web streams cost it more CPU than the encoding of those bodies).
   */
  private send(method: string, path: string, headers: Record<string, string>, payload: Buffer | undefined): Promise<Answer> {
    const url = new URL(this.baseUrl + path);
    const secure = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(
        url,
        { method, headers, agent: secure ? this.agents.https : this.agents.http, timeout: TIMEOUT_MS },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const answered = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) answered.append(name, v);
            }
            resolve({
              status,
              statusText: res.statusMessage ?? '',
              ok: status >= 200 && status < 300,
              headers: answered,
              text: Buffer.concat(chunks).toString('utf8'),
            });
          });
        },
      );
      req.on('timeout', () => req.destroy(new TimeoutError()));
      req.on('error', reject);
      req.end(payload);
    });
  }
}
