/**
 * The reply of a List RPC: the message and the total count of what the request selects (the
 * gateway writes it as `X-Total-Count`). It crosses the transport as `{ body, total }`.
 */
export class WithTotal<T> {
  constructor(
    readonly body: T,
    readonly total: number,
  ) {}
}

/** A paginated reply as it arrives at the gateway. */
export interface PaginatedReply<T = unknown> {
  body: T;
  total: number;
}
