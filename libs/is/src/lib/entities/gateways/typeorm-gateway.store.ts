import type { DataSource } from 'typeorm';
import { Gateway, getPath, type JsonObject, secretFieldsOf, setPath } from '@lorawan/api';
import type { SecretBox, StoredSecret } from '@lorawan/crypto';
import { isDuplicateKeyError } from '@lorawan/persistence';
import type { Collaborator } from '../collaborators/collaborator.model';
import type { EntityListQuery, Scope } from '../common/entity-list';
import { TypeOrmEntityStore } from '../registry/typeorm-entity.store';
import { GatewayEntity } from './gateway.entity';
import { toDomain, toEntity } from './gateway.mapper';
import type { EuiConflict, GatewayCreateResult, GatewayOrder, GatewayReplaceResult, GatewayStore, IsGateway } from './gateway.model';

const ORDER_COLUMNS: Record<GatewayOrder, string> = { gateway_id: 'gateway_id', gateway_eui: 'eui', name: 'name', created_at: 'created_at' };

/** The gateway's `Secret` fields (`lbs_lns_secret`, `target_cups_key`), derived from the contract. */
const SECRET_FIELDS = secretFieldsOf(Gateway);

/**
 * Gateways on the IS's database. The contract's `Secret` fields are sealed in the row's document
 * (`SecretBox`: AES-GCM with `IS_KEK_LABEL`'s KEK, TTS's `{key_id, value}`; as given without one)
 * and opened when read, so the rest of the IS sees them in the clear.
 */
export class TypeOrmGatewayStore extends TypeOrmEntityStore<GatewayEntity, IsGateway, GatewayOrder> implements GatewayStore {
  constructor(
    dataSource: DataSource,
    private readonly secrets: SecretBox,
  ) {
    super(
      dataSource,
      GatewayEntity,
      { table: 'gateways', id: 'gateway_id', kind: 'gateway', orderColumns: ORDER_COLUMNS, columns: ['gateway_id', 'eui', 'name'] },
      (row) => openedGateway(row, secrets),
    );
  }

  private toRow(gateway: IsGateway): GatewayEntity {
    return toEntity(withSecrets(gateway, (s) => this.secrets.sealBytes(Buffer.from(s.value ?? '', 'base64'))));
  }

  create(gateway: IsGateway, collaborator: Collaborator): Promise<GatewayCreateResult> {
    const row = this.toRow(gateway);
    return this.insertWithCollaborator('gateway', row, collaborator, () => this.euiConflict(row.eui));
  }

  async getByEui(eui: string, scope?: Scope): Promise<IsGateway | undefined> {
    const row = await this.table.findBy('eui', eui.toUpperCase(), scope);
    return row ? openedGateway(row, this.secrets) : undefined;
  }

  async list(query: EntityListQuery<GatewayOrder>): Promise<{ gateways: IsGateway[]; total: number }> {
    const { entities, total } = await this.page(query);
    return { gateways: entities, total };
  }

  async replace(gateway: IsGateway, expectedUpdatedAt: string): Promise<GatewayReplaceResult> {
    const { eui, name, updated_at, fields } = this.toRow(gateway);
    try {
      return (await this.table.replace(gateway.ids.gateway_id, { eui, name, updated_at, fields }, expectedUpdatedAt))
        ? { ok: true }
        : { ok: false, conflict: 'stale' };
    } catch (err) {
      const conflict = isDuplicateKeyError(err) ? await this.euiConflict(eui) : undefined;
      if (conflict) return conflict;
      throw err;
    }
  }

  async softDelete(gatewayId: string, deletedAt: string): Promise<boolean> {
    return this.table.softDelete(gatewayId, deletedAt);
  }

  purge(gatewayId: string): Promise<boolean> {
    return this.purgeWithCollaborators('gateway', gatewayId);
  }

  private async euiConflict(eui: string | null): Promise<EuiConflict | undefined> {
    const holder = eui ? await this.getByEui(eui, 'any') : undefined;
    return holder ? { ok: false, conflict: 'eui', holder } : undefined;
  }
}

/** Row → domain with the secrets opened. */
function openedGateway(row: GatewayEntity, secrets: SecretBox): IsGateway {
  return withSecrets(toDomain(row), (s) => ({ value: secrets.openBytes(s as StoredSecret).toString('base64') }));
}

/** A copy of `gateway` with each secret that has a value mapped (sealed or opened); the others as they are. */
function withSecrets(gateway: IsGateway, map: (secret: { key_id?: string; value?: string }) => { key_id?: string; value: string }): IsGateway {
  let copy: IsGateway | undefined;
  for (const path of SECRET_FIELDS) {
    const secret = getPath(gateway, path) as { key_id?: string; value?: string } | undefined;
    if (!secret?.value) continue;
    copy ??= structuredClone(gateway);
    setPath(copy as unknown as JsonObject, path, map(secret));
  }
  return copy ?? gateway;
}
