import { List, Uint32, Str, StringMap } from '../json/fields';
import { Message, Messages, Required } from '../json/nested';
import { EndDevice } from './end-device';
import { FieldMask, FieldMaskField } from './field-mask';
import { ApplicationIdentifiers, EndDeviceIdentifiers, ID_MAX_LENGTH, ID_PATTERN } from './identifiers';

export class CreateEndDeviceRequest {
  @Required() @Message(() => EndDevice) end_device!: EndDevice;
}

export class GetEndDeviceRequest {
  @Required() @Message(() => EndDeviceIdentifiers) end_device_ids!: EndDeviceIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

/** `order` values of the seed: a field path, `-` for descending. */
export const END_DEVICE_ORDERS = ['device_id', 'join_eui', 'dev_eui', 'name', 'description', 'created_at'] as const;
export type EndDeviceOrderField = (typeof END_DEVICE_ORDERS)[number];
const ORDER_PATTERN = new RegExp(`^(?:-?(?:${END_DEVICE_ORDERS.join('|')}))?$`);

export class ListEndDevicesRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
  @Str({ pattern: ORDER_PATTERN }) order?: string;
  @Uint32({ max: 1000 }) limit?: number;
  @Uint32() page?: number;
}

/** Longest substring a search matches on (TTS `SearchEndDevicesRequest`: `*_contains` max_len 50). */
export const SEARCH_CONTAINS_MAX_LENGTH = 50;

/**
 * TTS `SearchEndDevicesRequest` (`EndDeviceRegistrySearch.SearchEndDevices`,
 * `GET /search/applications/{application_ids.application_id}/devices`): devices of one application
 * whose fields contain the given substrings, case-insensitively; every filter given must hold.
 * `query` holds when the ID, name, description, DevEUI or JoinEUI contains it; the EUI filters
 * match the hexadecimal form. `dev_addr_contains` is accepted and, as in TTS's Identity Server,
 * not applied (the IS does not hold DevAddrs). Order, limit and page as List.
 */
export class SearchEndDevicesRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @Str({ maxLength: SEARCH_CONTAINS_MAX_LENGTH }) query?: string;
  @Str({ maxLength: SEARCH_CONTAINS_MAX_LENGTH }) id_contains?: string;
  @Str({ maxLength: SEARCH_CONTAINS_MAX_LENGTH }) name_contains?: string;
  @Str({ maxLength: SEARCH_CONTAINS_MAX_LENGTH }) description_contains?: string;
  @StringMap({ maxEntries: 10, keyPattern: ID_PATTERN, maxKeyLength: ID_MAX_LENGTH, maxValueLength: SEARCH_CONTAINS_MAX_LENGTH })
  attributes_contain?: Record<string, string>;
  @Str({ maxLength: 16 }) dev_eui_contains?: string;
  @Str({ maxLength: 16 }) join_eui_contains?: string;
  @Str({ maxLength: 8 }) dev_addr_contains?: string;
  @FieldMaskField() field_mask?: FieldMask;
  @Str({ pattern: ORDER_PATTERN }) order?: string;
  @Uint32({ max: 1000 }) limit?: number;
  @Uint32() page?: number;
}

export class UpdateEndDeviceRequest {
  @Required() @Message(() => EndDevice) end_device!: EndDevice;
  @FieldMaskField() field_mask?: FieldMask;
}

export class SetEndDeviceRequest {
  @Required() @Message(() => EndDevice) end_device!: EndDevice;
  @FieldMaskField() field_mask?: FieldMask;
}

/** Devices per TTS batch call (`BatchDeleteEndDevicesRequest.device_ids`: 1..20). */
export const BATCH_DEVICE_IDS_MAX = 20;

/** TTS's `device_ids` of a batch call: 1..BATCH_DEVICE_IDS_MAX device IDs. */
const BatchDeviceIds = (): PropertyDecorator =>
  List({
    minItems: 1,
    maxItems: BATCH_DEVICE_IDS_MAX,
    item: (v) => typeof v === 'string' && v.length <= ID_MAX_LENGTH && ID_PATTERN.test(v),
    itemReason: `each item must be an ID (at most ${ID_MAX_LENGTH} characters matching "${ID_PATTERN.source}")`,
  });

/** TTS `BatchDeleteEndDevicesRequest` (`DELETE …/devices/batch?device_ids=a&device_ids=b`): devices of one application. */
export class BatchDeleteEndDevicesRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @Required() @BatchDeviceIds() device_ids!: string[];
}

/** TTS `BatchGetEndDevicesRequest` (`GET /applications/{id}/devices/batch?device_ids=a&device_ids=b&field_mask=…`). */
export class BatchGetEndDevicesRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @Required() @BatchDeviceIds() device_ids!: string[];
  @FieldMaskField() field_mask?: FieldMask;
}

/** Devices per batch Create of the Identity Server (our extension). */
export const BATCH_CREATE_MAX = 1000;

/**
 * Our extension: `POST /applications/{id}/devices/batch` with 1..BATCH_CREATE_MAX devices of the
 * application, each as the single Create takes it (its `ids.application_ids` naming the path's
 * application), stored all or none.
 */
export class BatchCreateEndDevicesRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @Required() @Messages(() => EndDevice, { minItems: 1, maxItems: BATCH_CREATE_MAX }) end_devices!: EndDevice[];
}

/** Set requests per batch Set (our extension, `PUT /<js|ns|as>/applications/{id}/devices/batch`). */
export const BATCH_SET_MAX = 1000;

/** Our extension: up to BATCH_SET_MAX Sets of devices of one application, all or nothing. */
export class BatchSetEndDevicesRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @Required() @Messages(() => SetEndDeviceRequest, { minItems: 1, maxItems: BATCH_SET_MAX }) requests!: SetEndDeviceRequest[];
}

/** Delete routes take the identifiers themselves as the request. */
export { EndDeviceIdentifiers as DeleteEndDeviceRequest };
