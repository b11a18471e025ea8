import { fromEntityRow, toEntityRow } from '../registry/entity.mapper';
import { GATEWAY_DOCUMENT_FIELDS, GatewayEntity } from './gateway.entity';
import type { IsGateway } from './gateway.model';

/** Row → domain, with `frequency_plan_id` = `frequency_plan_ids[0]`. */
export function toDomain(row: GatewayEntity): IsGateway {
  const gateway: IsGateway = { ids: { gateway_id: row.gateway_id }, created_at: row.created_at, updated_at: row.updated_at };
  if (row.eui) gateway.ids.eui = row.eui;
  fromEntityRow(gateway, row, GATEWAY_DOCUMENT_FIELDS);
  if (gateway.frequency_plan_ids?.length) gateway.frequency_plan_id = gateway.frequency_plan_ids[0];
  return gateway;
}

/** Domain → row. */
export function toEntity(gateway: IsGateway): GatewayEntity {
  const row = new GatewayEntity();
  row.gateway_id = gateway.ids.gateway_id;
  row.eui = gateway.ids.eui ? gateway.ids.eui.toUpperCase() : null;
  return toEntityRow(row, gateway, GATEWAY_DOCUMENT_FIELDS);
}
