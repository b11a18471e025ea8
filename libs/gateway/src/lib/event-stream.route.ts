import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type CallerIdentity,
  type EntityRef,
  invalidationAffects,
  isJsonObject,
  newUlid,
  RPCS,
  rpcCorrelationId,
  STREAM_REPLICA_HEARTBEAT_MS,
  STREAM_REPLICA_SUBJECTS,
  STREAM_REPLICA_TIMEOUT_MS,
  type StreamStartReply,
} from '@lorawan/api';
import { ErrInternal, ErrUnavailable, StackError } from '@lorawan/errors';
import { eventStreamsOpen } from '@lorawan/observability';
import { type PubSub, PUBSUB, type Subscription } from '@lorawan/transport';
import { Authenticator, isEntityId } from './authenticator';
import { DEFAULT_STREAM_LIMITS, EventStreamSession, refuseStream, type StreamLimits, type StreamSink } from './event-stream.session';
import { sendError } from './http-reply';
import { buildRequest, compileBinding } from './request-builder';
import { RpcForwarder } from './rpc-forwarder';
import { routeLabel } from './rpc-routes';
import { framingFor } from './stream-framing';
import { ErrStreamRightsChanged, ErrTooManyStreams } from './gateway-errors';

/** Overrides of the stream limits (tests). */
export const STREAM_LIMITS = Symbol('STREAM_LIMITS');
/** Overrides of how long an events replica may stay silent, and how often that is checked (tests). */
export const REPLICA_WATCH = Symbol('REPLICA_WATCH');

export interface ReplicaWatch {
  timeoutMs: number;
  checkMs: number;
}

const STREAM = RPCS['Events.Stream'];
/** More identifiers than a request may hold: none is resolved, the events service refuses the request. */
const MAX_IDENTIFIERS = 100;

export interface OpenStream {
  authorization: string | undefined;
  accept: string | string[] | undefined;
  /** The request message, as built from the body (grpc-gateway semantics). */
  request: Record<string, unknown>;
  requestId: string;
  sink: StreamSink;
}

/**
 * `POST /api/v3/events` (`Events.Stream`): authenticates like every route, resolves the caller's
 * rights on each requested entity (the events service checks them and filters events by them),
 * opens a session with an events replica and streams its messages (`EventStreamSession`).
 * Errors before the stream starts answer with their status; the body is the error message of the
 * stream framing (`{"error":…}`), except a body that is not JSON (a plain status, as grpc-gateway).
 * It listens to the events replicas' heartbeats: a stream whose replica has been silent for
 * `STREAM_REPLICA_TIMEOUT_MS` (killed, frozen, cut off from the broker) ends with `unavailable`, so
 * that its client reconnects to a live replica rather than wait on a silent stream.
 */
@Injectable()
export class EventStreamRoute implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Gateway');
  private readonly sessions = new Set<EventStreamSession>();
  /** The credential (caller ID) of each session, and how many sessions each credential has. */
  private readonly credentialOf = new Map<EventStreamSession, string>();
  private readonly perCredential = new Map<string, number>();
  private readonly limits: StreamLimits;
  private readonly watch: ReplicaWatch;
  private shuttingDown = false;
  /** When each events replica was last heard (`performance.now()`). */
  private readonly replicaSeen = new Map<string, number>();
  private heartbeats?: Subscription;
  private watchTimer?: NodeJS.Timeout;
  /** What each stream was authorized with, so it can be checked again (`revalidate`). */
  private readonly grants = new Map<EventStreamSession, StreamGrant>();
  private stopInvalidations?: () => void;

  constructor(
    private readonly auth: Authenticator,
    private readonly forwarder: RpcForwarder,
    @Inject(PUBSUB) private readonly pubsub: PubSub,
    @Optional() @Inject(STREAM_LIMITS) limits?: Partial<StreamLimits>,
    @Optional() @Inject(REPLICA_WATCH) watch?: Partial<ReplicaWatch>,
  ) {
    this.limits = { ...DEFAULT_STREAM_LIMITS, ...limits };
    this.watch = { timeoutMs: STREAM_REPLICA_TIMEOUT_MS, checkMs: STREAM_REPLICA_HEARTBEAT_MS, ...watch };
  }

  onModuleInit(): void {
    const prefix = STREAM_REPLICA_SUBJECTS.slice(0, -1);
    this.heartbeats = this.pubsub.subscribe(STREAM_REPLICA_SUBJECTS, (_payload, subject) => {
      const at = subject.lastIndexOf(prefix);
      if (at >= 0) this.replicaSeen.set(subject.slice(at + prefix.length), performance.now());
    });
    this.watchTimer = setInterval(() => this.endSilentStreams(), this.watch.checkMs);
    this.watchTimer.unref();
    this.stopInvalidations = this.auth.onInvalidation((msg) => {
      for (const [session, grant] of this.grants) if (invalidationAffects(msg, grant.caller)) void this.revalidate(session);
    });
  }

  /**
   * Ends the streams whose replica has not been heard for `timeoutMs` (counted from the stream's
   * start when it never was), and forgets replicas silent for long.
   */
  private endSilentStreams(): void {
    const now = performance.now();
    const { timeoutMs } = this.watch;
    for (const session of [...this.sessions]) {
      const replica = session.replica;
      if (replica === undefined || session.startedAt === undefined) continue;
      const heard = Math.max(this.replicaSeen.get(replica) ?? 0, session.startedAt);
      if (now - heard <= timeoutMs) continue;
      this.logger.warn({ session: session.id, replica, silent_ms: Math.round(now - heard) }, 'events replica silent: stream ended');
      session.fail(ErrUnavailable.with({ component: 'events' }));
    }
    for (const [replica, seen] of this.replicaSeen) if (now - seen > timeoutMs * 10) this.replicaSeen.delete(replica);
  }

  register(fastify: FastifyInstance): void {
    for (const binding of STREAM.http) {
      const compiled = compileBinding(binding);
      fastify.route({
        method: binding.verb,
        url: compiled.fastifyPath,
        config: { route: routeLabel(binding.path) },
        handler: async (req: FastifyRequest, reply: FastifyReply) => {
          let request: Record<string, unknown>;
          try {
            request = buildRequest(
              binding,
              compiled,
              req.params as Record<string, string>,
              req.query as Record<string, string | string[]>,
              req.body as string | undefined,
              STREAM.request,
            );
          } catch (err) {
            return sendError(reply, err, (fields, message) => this.logger.error({ ...fields, request_id: req.id, rpc: STREAM.name }, message));
          }
          // From here the response is written by hand, chunk by chunk, without Fastify's serialization.
          reply.hijack();
          await this.open({ authorization: req.headers.authorization, accept: req.headers.accept, request, requestId: req.id, sink: reply.raw });
        },
      });
    }
  }

  /** Streams open or opening on this gateway. */
  get openSessions(): number {
    return this.sessions.size;
  }

  async open(o: OpenStream): Promise<void> {
    const framing = framingFor(o.accept);
    const headers = { 'x-request-id': o.requestId };
    let caller: CallerIdentity;
    try {
      caller = await this.caller(o.authorization, o.request.identifiers, o.requestId);
    } catch (err) {
      return refuseStream(o.sink, framing, headers, this.stackError(err, o.requestId));
    }
    // The client left meanwhile: no session to open.
    if (o.sink.destroyed) return;
    if (this.shuttingDown) return refuseStream(o.sink, framing, headers, ErrUnavailable.with({ component: 'gateway' }));
    const open = this.perCredential.get(caller.id) ?? 0;
    const max = this.limits.maxStreamsPerCredential;
    if (max > 0 && open >= max) return refuseStream(o.sink, framing, headers, ErrTooManyStreams.with({ open, max }));
    // Subscribed (by the session) before the replica is asked, so that nothing it sends is missed.
    const session = new EventStreamSession({
      id: newUlid(),
      sink: o.sink,
      framing,
      headers,
      pubsub: this.pubsub,
      limits: this.limits,
      onClosed: (s) => this.forget(s),
    });
    this.sessions.add(session);
    this.grants.set(session, { caller, authorization: o.authorization, identifiers: o.request.identifiers, requestId: o.requestId });
    this.scheduleExpiry(session);
    this.credentialOf.set(session, caller.id);
    this.perCredential.set(caller.id, open + 1);
    eventStreamsOpen.set({ component: 'gateway' }, this.sessions.size);
    try {
      const ctx = { request_id: o.requestId, correlation_ids: [rpcCorrelationId(STREAM, o.requestId)], caller };
      // The session ID is the gateway's, whatever the client sent.
      const { body } = await this.forwarder.forward(STREAM, { ...o.request, session_id: session.id }, ctx);
      const reply = body as StreamStartReply;
      session.start(reply.start, typeof reply.replica === 'string' ? reply.replica : undefined);
    } catch (err) {
      session.refuse(this.stackError(err, o.requestId));
    }
  }

  /**
   * A stream lives no longer than its credential: at the key's `expires_at`, and whenever the IS
   * says the key or an entity of the stream changed (`access.invalidate`), the caller is resolved
   * again. Refused (expired, deleted, no rights left) → the stream ends with that error; other
   * rights than it was opened with → it ends with `rights_changed` (the client reconnects with the
   * current ones); the same → it goes on.
   */
  private async revalidate(session: EventStreamSession): Promise<void> {
    const grant = this.grants.get(session);
    if (!grant) return;
    clearTimeout(grant.expiry);
    let caller: CallerIdentity;
    try {
      caller = await this.caller(grant.authorization, grant.identifiers, grant.requestId);
    } catch (err) {
      if (!this.grants.has(session)) return;
      const error = this.stackError(err, grant.requestId);
      this.logger.log({ session: session.id, request_id: grant.requestId, error: error.name }, 'event stream ended: its credential is refused');
      return session.abort(error);
    }
    if (!this.grants.has(session)) return;
    if (JSON.stringify(caller.entity_rights) !== JSON.stringify(grant.caller.entity_rights)) {
      this.logger.log({ session: session.id, request_id: grant.requestId }, 'event stream ended: its rights changed');
      return session.abort(ErrStreamRightsChanged.with());
    }
    grant.caller = caller;
    this.scheduleExpiry(session);
  }

  /** Checks the stream again when its key expires (timers run at most ~24 days ahead: a later expiry is checked then and rescheduled). */
  private scheduleExpiry(session: EventStreamSession): void {
    const grant = this.grants.get(session);
    const at = grant?.caller.expires_at === undefined ? NaN : Date.parse(grant.caller.expires_at);
    if (!grant || Number.isNaN(at)) return;
    grant.expiry = setTimeout(() => void this.revalidate(session), Math.min(Math.max(at - Date.now(), 0), MAX_TIMER_MS));
    grant.expiry.unref();
  }

  private forget(session: EventStreamSession): void {
    clearTimeout(this.grants.get(session)?.expiry);
    this.grants.delete(session);
    this.sessions.delete(session);
    const credential = this.credentialOf.get(session);
    if (credential !== undefined) {
      this.credentialOf.delete(session);
      const left = (this.perCredential.get(credential) ?? 1) - 1;
      if (left > 0) this.perCredential.set(credential, left);
      else this.perCredential.delete(credential);
    }
    eventStreamsOpen.set({ component: 'gateway' }, this.sessions.size);
  }

  /** Shutdown: every stream ends (and its replica session with it), so the HTTP server can close. */
  onModuleDestroy(): void {
    this.shuttingDown = true;
    this.heartbeats?.unsubscribe();
    this.stopInvalidations?.();
    clearInterval(this.watchTimer);
    for (const session of [...this.sessions]) session.shutdown();
  }

  /** The caller with its rights on each well-formed requested entity (devices: their application). */
  private async caller(authorization: string | undefined, identifiers: unknown, requestId: string): Promise<CallerIdentity> {
    return this.auth.authenticateEntities(authorization, rightsEntities(identifiers), requestId);
  }

  private stackError(err: unknown, requestId: string): StackError {
    if (err instanceof StackError) return err;
    const internal = ErrInternal.with();
    this.logger.error({ err, correlation_id: internal.correlationId, request_id: requestId, rpc: STREAM.name }, 'unhandled error');
    return internal;
  }
}

/** What a stream was authorized with: the caller as resolved, and what resolves it again. */
interface StreamGrant {
  caller: CallerIdentity;
  authorization: string | undefined;
  identifiers: unknown;
  requestId: string;
  /** The timer of the key's expiry, if it has one. */
  expiry?: NodeJS.Timeout;
}

/** The longest delay `setTimeout` keeps (2^31 - 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

const ID_FIELDS: Record<string, { kind: EntityRef['kind']; field: string }> = {
  application_ids: { kind: 'application', field: 'application_id' },
  gateway_ids: { kind: 'gateway', field: 'gateway_id' },
  user_ids: { kind: 'user', field: 'user_id' },
  organization_ids: { kind: 'organization', field: 'organization_id' },
  client_ids: { kind: 'client', field: 'client_id' },
};

/** The fields of `EntityIdentifiers`, a oneof: keys besides these are unknown fields, which decoding drops. */
const ENTITY_ID_KEYS = new Set([...Object.keys(ID_FIELDS), 'device_ids']);

/**
 * The rights entity of each well-formed `EntityIdentifiers` of a request, once each; malformed ones
 * are skipped (the events service validates the request and names the bad field). Unknown keys
 * beside the one set field are ignored, as the events service's decoding drops them.
 */
export function rightsEntities(identifiers: unknown): EntityRef[] {
  if (!Array.isArray(identifiers) || identifiers.length > MAX_IDENTIFIERS) return [];
  const out = new Map<string, EntityRef>();
  for (const ids of identifiers) {
    if (!isJsonObject(ids)) continue;
    const keys = Object.keys(ids).filter((k) => ENTITY_ID_KEYS.has(k) && ids[k] !== undefined && ids[k] !== null);
    if (keys.length !== 1) continue;
    const [key] = keys;
    const value = ids[key];
    if (!isJsonObject(value)) continue;
    let ref: EntityRef | undefined;
    if (key === 'device_ids') {
      const app = value.application_ids;
      if (isJsonObject(app) && isEntityId(app.application_id)) ref = { kind: 'application', id: app.application_id };
    } else {
      const { kind, field } = ID_FIELDS[key];
      const id = value[field];
      if (isEntityId(id)) ref = { kind, id };
    }
    if (ref) out.set(`${ref.kind}:${ref.id}`, ref);
  }
  return [...out.values()];
}
