import { Application, Gateway, User } from '../messages/identity';
import { Client } from '../messages/client';
import { Organization } from '../messages/organization';
import { contractPaths } from './contract-paths';
import { APPLICATION_LINK_PATHS, DEPRECATED_APPLICATION_LINK_PATHS } from '../messages/application-link';
import { type TtsRpc, subset } from './tts-paths';
import { ApplicationPubSub } from '../messages/pubsub';

/**
 * The Identity Server's entities: TTS's list where the spec has one (applications), restricted to
 * the contract's fields; the contract's fields otherwise (gateways, users). Contacts are selected
 * whole, as in TTS's lists (whose sub-paths name the proto oneof, `administrative_contact.ids.…`,
 * which the contract does not have). A user's `password` is write-only: set on Create, never read
 * or updated through a field mask.
 */
const isContactSubPath = (p: string) => /^(administrative|technical)_contact\./.test(p);
const APPLICATION_PATHS: ReadonlySet<string> = new Set(contractPaths(Application));
const GATEWAY_PATHS: ReadonlySet<string> = new Set(contractPaths(Gateway).filter((p) => !isContactSubPath(p)));
const USER_PATHS: ReadonlySet<string> = new Set(contractPaths(User).filter((p) => p !== 'password'));
const applicationPaths = (rpc: TtsRpc) => subset(rpc, (p) => APPLICATION_PATHS.has(p));
/** TTS `field_mask_validation.go`: a client's `secret` may be set by Update, never selected by Get or List. */
const CLIENT_UPDATE_PATHS: ReadonlySet<string> = new Set(contractPaths(Client).filter((p) => !isContactSubPath(p)));
const CLIENT_READ_PATHS: ReadonlySet<string> = new Set([...CLIENT_UPDATE_PATHS].filter((p) => p !== 'secret'));
/** TTS `OrganizationFieldPathsNested` (Get, List and Update alike), as the contract has them. */
const ORGANIZATION_PATHS: ReadonlySet<string> = new Set(contractPaths(Organization).filter((p) => !isContactSubPath(p)));

/**
 * Pub/Sub paths as TTS names them (`ApplicationPubSubFieldPathsNested`): the contract's fields,
 * the `provider` oneof's (`nats`, `mqtt`, `aws_iot` in the JSON) under `provider.`.
 */
const PUBSUB_PATHS: ReadonlySet<string> = new Set([
  'provider',
  ...contractPaths(ApplicationPubSub).map((p) => (/^(nats|mqtt|aws_iot)(\.|$)/.test(p) ? `provider.${p}` : p)),
]);

/** The allowed field-mask paths of the IS's entity registries, the webhook registry and the application link. */
export function entityAllowedPaths() {
  return {
    'ApplicationRegistry.Get': applicationPaths('/ttn.lorawan.v3.ApplicationRegistry/Get'),
    'ApplicationRegistry.List': applicationPaths('/ttn.lorawan.v3.ApplicationRegistry/List'),
    'ApplicationRegistry.Update': applicationPaths('/ttn.lorawan.v3.ApplicationRegistry/Update'),
    'GatewayRegistry.Get': GATEWAY_PATHS,
    'GatewayRegistry.List': GATEWAY_PATHS,
    'GatewayRegistry.Update': GATEWAY_PATHS,
    'UserRegistry.Get': USER_PATHS,
    'UserRegistry.List': USER_PATHS,
    'UserRegistry.Update': USER_PATHS,
    'ClientRegistry.Get': CLIENT_READ_PATHS,
    'ClientRegistry.List': CLIENT_READ_PATHS,
    'ClientRegistry.Update': CLIENT_UPDATE_PATHS,
    'OrganizationRegistry.Get': ORGANIZATION_PATHS,
    'OrganizationRegistry.List': ORGANIZATION_PATHS,
    'OrganizationRegistry.Update': ORGANIZATION_PATHS,
    'ApplicationWebhookRegistry.Get': subset('/ttn.lorawan.v3.ApplicationWebhookRegistry/Get', isWebhookField),
    'ApplicationWebhookRegistry.List': subset('/ttn.lorawan.v3.ApplicationWebhookRegistry/List', isWebhookField),
    'ApplicationWebhookRegistry.Set': subset('/ttn.lorawan.v3.ApplicationWebhookRegistry/Set', isWebhookField),
    'ApplicationPubSubRegistry.Get': PUBSUB_PATHS,
    'ApplicationPubSubRegistry.List': PUBSUB_PATHS,
    'ApplicationPubSubRegistry.Set': PUBSUB_PATHS,
    /** TTS `asApplicationLinkFieldPaths` (not in the spec's list): the link's fields plus the removed ones, which are ignored. */
    'As.GetLink': new Set<string>([...APPLICATION_LINK_PATHS, ...DEPRECATED_APPLICATION_LINK_PATHS]),
    'As.SetLink': new Set<string>([...APPLICATION_LINK_PATHS, ...DEPRECATED_APPLICATION_LINK_PATHS]),
  } as const;
}

/**
 * Webhook paths of our contract: TTS's list without the `health_status.status.*` sub-paths
 * (`health_status` is one JSON value here, `{"healthy":{}}` or `{"unhealthy":{…}}`, set or read whole).
 */
function isWebhookField(path: string): boolean {
  return !path.startsWith('health_status.');
}
