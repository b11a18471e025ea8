import { entityEventSubjects, EVENT_SUBJECTS } from '../events/event';
import { replicaHeartbeatSubject, streamControlSubject, streamSubject } from '../events/stream';
import { ACCESS_INVALIDATION_SUBJECT } from './context';
import { COMPONENTS, type ComponentName, type RpcDefinition } from './define-rpc';
import { gatewayDownlinkSubject, PER_GATEWAY_RPCS } from './dataplane-rpcs';
import { healthSubject, RPCS } from './rpc-table';

/** A NATS user of the stack: one per component, and the HTTP gateway. */
export type NatsPrincipal = ComponentName | 'gateway';
export const NATS_PRINCIPALS: readonly NatsPrincipal[] = [...COMPONENTS, 'gateway'];

/** What one NATS user may publish and subscribe to (nats-server `permissions`). */
export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
  /** The user may answer requests it received (publish once to their reply subject): set for every component serving RPCs. */
  allowResponses: boolean;
}

const CALLER_PREFIX: Record<string, ComponentName> = { Is: 'is', Js: 'js', Ns: 'ns', As: 'as', Gs: 'gs' };

/**
 * Who calls an RPC of the table. The data plane's internal RPCs are named caller-then-callee as in
 * TTS (`NsJs` is the NS calling the JS); every other RPC (HTTP-bound, the credential lookup, the
 * events stream, the internal identity lookups) is called by the HTTP gateway only.
 */
export function rpcCaller(rpc: Pick<RpcDefinition, 'service' | 'component' | 'http'>): NatsPrincipal {
  const named = /^(Is|Js|Ns|As|Gs)(Is|Js|Ns|As|Gs)$/.exec(rpc.service);
  if (named && rpc.http.length === 0 && CALLER_PREFIX[named[2]] === rpc.component) return CALLER_PREFIX[named[1]];
  return 'gateway';
}

/** The JetStream streams each component keeps (stream names as the components make them, see the spec that checks they agree). */
export function jetStreamNames(subjectPrefix?: string): Partial<Record<ComponentName, { streams: string[]; kvBuckets: string[] }>> {
  const suffix = subjectPrefix ? `_${subjectPrefix}` : '';
  return {
    events: { streams: [`EVENTS${suffix}`], kvBuckets: [] },
    as: { streams: [`WEBHOOKS${suffix}`], kvBuckets: [] },
    ns: { streams: [`KV_NS_UPLINKS${suffix}`], kvBuckets: [`NS_UPLINKS${suffix}`] },
  };
}

/** The JetStream API subjects one stream's owner needs (create/update/info, its consumers, acks), none of another stream. */
function jetStreamApi(stream: string): string[] {
  return [
    ...['CREATE', 'UPDATE', 'INFO', 'DELETE', 'PURGE'].map((op) => `$JS.API.STREAM.${op}.${stream}`),
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.STREAM.MSG.DELETE.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.>`,
    `$JS.API.CONSUMER.DELETE.${stream}.>`,
    `$JS.API.CONSUMER.LIST.${stream}`,
    `$JS.API.CONSUMER.NAMES.${stream}`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
    `$JS.ACK.${stream}.>`,
    `$JS.FC.${stream}.>`,
  ];
}

/** The reply inbox prefix of a principal's connections (nats.js `inboxPrefix`; see `natsInboxPrefix` of @lorawan/transport). */
export function principalInbox(principal: NatsPrincipal): string {
  return `_INBOX_${principal}`;
}

/**
 * Each principal's NATS permissions under a subject prefix, derived from the RPC table (who calls
 * and who serves each RPC subject), the event and stream-session subjects and the components'
 * JetStream streams. A component subscribes to its own RPC subjects and inbox, publishes requests
 * only to the RPCs it calls; only the gateway publishes requests to the RPCs the API exposes.
 */
export function natsPermissions(subjectPrefix?: string): Record<NatsPrincipal, NatsPermissions> {
  const p = subjectPrefix ? `${subjectPrefix}.` : '';
  const streams = jetStreamNames(subjectPrefix);
  const result = {} as Record<NatsPrincipal, NatsPermissions>;
  for (const principal of NATS_PRINCIPALS) {
    result[principal] = { publish: [], subscribe: [`${principalInbox(principal)}.>`], allowResponses: principal !== 'gateway' };
  }
  for (const rpc of Object.values(RPCS) as RpcDefinition[]) {
    const caller = result[rpcCaller(rpc)].publish;
    caller.push(`${p}${rpc.subject}`);
    // The GS serves the NS's downlinks, and its replicas each other's stats requests, on each gateway's own subject.
    if (PER_GATEWAY_RPCS.has(rpc.name)) caller.push(`${p}${gatewayDownlinkSubject(rpc.subject, '*')}`);
  }
  for (const component of COMPONENTS) {
    const own = result[component];
    own.subscribe.push(`${p}rpc.${component}.>`);
    result.gateway.publish.push(`${p}${healthSubject(component)}`);
    // Publishers hear the events replicas' heartbeats: what their streams watch (EVENTS_DATA=watched).
    if (component !== 'events') {
      own.publish.push(`${p}${EVENT_SUBJECTS}`);
      own.subscribe.push(`${p}${replicaHeartbeatSubject('*')}`);
    }
    for (const stream of streams[component]?.streams ?? []) own.publish.push(...jetStreamApi(stream));
    for (const bucket of streams[component]?.kvBuckets ?? []) own.publish.push(`$KV.${bucket}.>`);
    if (streams[component]) own.publish.push('$JS.API.INFO');
  }
  // Access invalidations: the IS tells the gateways' credential caches.
  result.is.publish.push(`${p}${ACCESS_INVALIDATION_SUBJECT}`);
  result.gateway.subscribe.push(`${p}${ACCESS_INVALIDATION_SUBJECT}`);
  // Event streams: the events service answers each session on its subject; the gateway keeps it alive.
  result.events.subscribe.push(`${p}${EVENT_SUBJECTS}`, `${p}${streamControlSubject('*')}`);
  result.events.publish.push(`${p}${streamSubject('*')}`, `${p}${replicaHeartbeatSubject('*')}`);
  result.gateway.subscribe.push(`${p}${streamSubject('*')}`, `${p}${replicaHeartbeatSubject('*')}`);
  result.gateway.publish.push(`${p}${streamControlSubject('*')}`);
  // The AS: its replicas' application caches, its webhook job queue's subjects, the application
  // messages for the MQTT server of every replica (`as.mqtt.up.<application>.<device>.<kind>`),
  // whose connections follow the IS's access invalidations, and the Pub/Sub changes that make its
  // replicas re-open a Pub/Sub's connection (PUBSUB_CHANGED_SUBJECT).
  result.as.publish.push(`${p}as.cache.>`, `${p}as.webhooks.>`, `${p}as.mqtt.>`, `${p}as.pubsub.>`);
  result.as.subscribe.push(`${p}as.cache.>`, `${p}as.mqtt.>`, `${p}as.pubsub.>`, `${p}${ACCESS_INVALIDATION_SUBJECT}`);
  // The GS forgets a refused gateway EUI when the IS registers a gateway with it (its gateway.* events).
  // The GS checks a Basics Station gateway's API key (RIGHT_GATEWAY_LINK) as the gateway checks the API's callers.
  result.gs.publish.push(`${p}${RPCS['EntityAccess.Authorize'].subject}`);
  result.gs.subscribe.push(`${p}${entityEventSubjects('gateway')}`);
  // The NS replicas' uplink deduplication: metadata sent straight to the claiming replica.
  result.ns.publish.push(`${p}ns.dedup.>`);
  result.ns.subscribe.push(`${p}ns.dedup.>`);
  for (const permissions of Object.values(result)) {
    permissions.publish = [...new Set(permissions.publish)].sort();
    permissions.subscribe = [...new Set(permissions.subscribe)].sort();
  }
  return result;
}

/**
 * The nats-server `authorization` block (JSON, which nats-server's configuration format accepts):
 * one user per principal, named after it (NATS_USER of its processes: `is`, …, `gateway`), with
 * its password and permissions; anything a user's permissions do not list is refused.
 */
export function natsAuthorization(passwords: Record<NatsPrincipal, string>, subjectPrefix?: string): { users: Array<Record<string, unknown>> } {
  const permissions = natsPermissions(subjectPrefix);
  return {
    users: NATS_PRINCIPALS.map((principal) => {
      const { publish, subscribe, allowResponses } = permissions[principal];
      return {
        user: principal,
        password: passwords[principal],
        permissions: { publish: { allow: publish }, subscribe: { allow: subscribe }, ...(allowResponses ? { allow_responses: true } : {}) },
      };
    }),
  };
}
