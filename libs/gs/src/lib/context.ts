import { newUlid, type RpcContext } from '@lorawan/api';

/** The context of a call or an event of the Gateway Server: a fresh request ID and the correlation IDs it carries. */
export function gsContext(correlationIds: string[]): RpcContext {
  return { request_id: newUlid(), correlation_ids: correlationIds };
}
