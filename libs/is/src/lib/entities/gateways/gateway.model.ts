import type { GATEWAY_ORDERS, Location } from '@lorawan/api';
import type { Collaborator } from '../collaborators/collaborator.model';
import type { EntityListQuery, Scope } from '../common/entity-list';
import type { CollaboratedEntity, CreateResult, EntityStore } from '../registry/entity.model';

/**
 * The Identity Server's view of a gateway: the contract's `Gateway` as stored, zero values absent.
 * `frequency_plan_id` always equals `frequency_plan_ids[0]` (TTS keeps the deprecated field so).
 */
export interface IsGateway extends CollaboratedEntity<'gateway'> {
  ids: { gateway_id: string; eui?: string };
  version_ids?: { brand_id?: string; model_id?: string; hardware_version?: string; firmware_version?: string; runtime_version?: string };
  gateway_server_address?: string;
  auto_update?: boolean;
  update_channel?: string;
  frequency_plan_id?: string;
  frequency_plan_ids?: string[];
  status_public?: boolean;
  location_public?: boolean;
  schedule_downlink_late?: boolean;
  enforce_duty_cycle?: boolean;
  schedule_anytime_delay?: string;
  update_location_from_status?: boolean;
  require_authenticated_connection?: boolean;
  disable_packet_broker_forwarding?: boolean;
  antennas?: Array<{ gain?: number; location?: Location; attributes?: Record<string, string>; placement?: string }>;
  /** Secrets in the clear here (`value` base64); the store seals them at rest. */
  lbs_lns_secret?: GatewaySecret;
  target_cups_uri?: string;
  target_cups_key?: GatewaySecret;
}

/** The contract's `Secret` as the IS holds it: `value` standard base64. */
export interface GatewaySecret {
  key_id?: string;
  value?: string;
}

export type GatewayOrder = (typeof GATEWAY_ORDERS)[number];

/** The gateway that holds an EUI another gateway asked for. */
export type EuiConflict = { ok: false; conflict: 'eui'; holder: IsGateway };
export type GatewayCreateResult = CreateResult | EuiConflict;
export type GatewayReplaceResult = { ok: true } | { ok: false; conflict: 'stale' } | EuiConflict;

/** Storage of gateways; TypeORM on MySQL and SQLite, held to `identity.store.conformance.ts`. */
export interface GatewayStore extends EntityStore<IsGateway> {
  /** Stores a new gateway and its first collaborator, both or neither. IDs and EUIs stay taken until a purge. */
  create(gateway: IsGateway, collaborator: Collaborator): Promise<GatewayCreateResult>;
  /** The gateway registered with the EUI (upper-case hex). */
  getByEui(eui: string, scope?: Scope): Promise<IsGateway | undefined>;
  list(query: EntityListQuery<GatewayOrder>): Promise<{ gateways: IsGateway[]; total: number }>;
  /** Replaces the live gateway if it still has `expectedUpdatedAt` (`stale` otherwise, or when it is gone). */
  replace(gateway: IsGateway, expectedUpdatedAt: string): Promise<GatewayReplaceResult>;
  softDelete(gatewayId: string, deletedAt: string): Promise<boolean>;
  restore(gatewayId: string): Promise<boolean>;
  /** Removes the gateway (live or soft-deleted) and its collaborators; false when there is none. */
  purge(gatewayId: string): Promise<boolean>;
}

export const GATEWAY_STORE = Symbol('GATEWAY_STORE');
