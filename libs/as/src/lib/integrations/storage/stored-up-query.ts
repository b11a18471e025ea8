import { checkFieldMaskPaths, type GetStoredApplicationUpCountRequest, type GetStoredApplicationUpRequest, WEBHOOK_FIELD_MASK_PATHS } from '@lorawan/api';
import { ErrValidation } from '@lorawan/errors';
import type { StoredUpFilter } from './stored-up.store';

/**
 * A storage query's filters as the store takes them (TTS `GetStoredApplicationUpRequest`): an
 * application's or one device's messages (not both), of a type (`""`: all), received after /
 * before two times or within the `last` duration (not both), on an FPort; then the order
 * (`received_at` ascending by default, `-received_at` newest first), the limit (0 or absent: no
 * limit) and the ApplicationUp paths each result keeps.
 */
export interface StoredUpSelection extends StoredUpFilter {
  descending: boolean;
  /** 0: no limit. */
  limit: number;
  paths: string[];
}

type Filters = Pick<GetStoredApplicationUpRequest, 'application_ids' | 'end_device_ids' | 'type' | 'after' | 'before' | 'f_port' | 'last'>;

const invalid = (field: string, reason: string) => ErrValidation.with({ field, name: 'GetStoredApplicationUpRequestValidationError', reason });

/** The filters of a Get or Count, checked; `now` (epoch ms) anchors `last`. */
export function storedUpFilter(req: Filters, now: number): StoredUpFilter {
  const app = req.application_ids?.application_id;
  const device = req.end_device_ids;
  if (app !== undefined && device !== undefined) throw invalid('application_ids', 'cannot be used in conjunction with end_device_ids');
  if (app === undefined && device === undefined) throw invalid('application_ids', 'application_ids or end_device_ids is required');
  if (req.last !== undefined && (req.after !== undefined || req.before !== undefined))
    throw invalid('last', 'cannot be used in conjunction with after and before');
  const filter: StoredUpFilter = device
    ? { applicationId: device.application_ids.application_id, deviceId: device.device_id }
    : { applicationId: app as string };
  if (req.type) filter.type = req.type;
  if (req.after !== undefined) filter.after = Date.parse(req.after);
  if (req.before !== undefined) filter.before = Date.parse(req.before);
  if (req.last !== undefined) {
    const seconds = Number.parseFloat(req.last);
    if (!(seconds > 0)) throw invalid('last', 'value must be greater than 0s');
    filter.after = now - Math.round(seconds * 1000);
  }
  if (req.f_port !== undefined) filter.fPort = req.f_port;
  return filter;
}

/** A Get's selection: its filters, order, limit and field mask (paths of ApplicationUp), checked. */
export function storedUpSelection(req: GetStoredApplicationUpRequest, now: number): StoredUpSelection {
  const paths = req.field_mask?.paths ?? [];
  checkFieldMaskPaths(paths, WEBHOOK_FIELD_MASK_PATHS);
  return { ...storedUpFilter(req, now), descending: req.order === '-received_at', limit: req.limit ?? 0, paths };
}

/** A Count's filters. */
export function storedUpCountFilter(req: GetStoredApplicationUpCountRequest, now: number): StoredUpFilter {
  return storedUpFilter(req, now);
}

/** Where a query goes on from (the continuation token): the selection and the last row given. */
export interface StoredUpContinuation {
  selection: Omit<StoredUpSelection, 'applicationId' | 'deviceId'>;
  cursor: { receivedAt: number; id: number };
}

/**
 * The continuation token of the next page: the selection (a limit counted down) and the cursor, as
 * base64url JSON. The identifiers are not in it: they always come from the request (whose
 * rights were checked), so a token cannot reach another application's messages.
 */
export function encodeContinuation(c: StoredUpContinuation): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

export function decodeContinuation(token: string): StoredUpContinuation {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (!isContinuation(parsed)) throw invalid('continuation_token', 'value is not a continuation token of this server');
  return parsed;
}

function isContinuation(v: unknown): v is StoredUpContinuation {
  const c = v as StoredUpContinuation | undefined;
  const num = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  const optNum = (x: unknown) => x === undefined || num(x);
  if (!c || typeof c !== 'object' || !c.cursor || !c.selection) return false;
  const s = c.selection;
  return (
    num(c.cursor.receivedAt) &&
    num(c.cursor.id) &&
    typeof s.descending === 'boolean' &&
    num(s.limit) &&
    s.limit >= 0 &&
    Array.isArray(s.paths) &&
    s.paths.every((p) => typeof p === 'string' && WEBHOOK_FIELD_MASK_PATHS.has(p)) &&
    (s.type === undefined || typeof s.type === 'string') &&
    optNum(s.after) &&
    optNum(s.before) &&
    optNum(s.fPort)
  );
}
