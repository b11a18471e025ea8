import type { Right } from './rights';

/** Who is calling, as the gateway established it. Components enforce rights from this. */
export interface CallerIdentity {
  /** `admin`: the bootstrap admin key from ADMIN_API_KEY (universal rights except *_KEYS on others' apps, later). */
  kind: 'admin' | 'internal';
  /** Identifier of the credential (never the secret). */
  id: string;
  /** Rights granted; `universal` grants every right on every entity. */
  universal: boolean;
  rights: Right[];
}

/** Metadata sent with every RPC alongside the request message. */
export interface RpcContext {
  request_id: string;
  correlation_ids: string[];
  caller?: CallerIdentity;
}
