import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  ALLOWED_PATHS,
  APPLICATION_LINK_TOP_LEVEL_PATHS,
  type ApplicationIdentifiers,
  ApplicationLink,
  applyFields,
  checkFieldMaskPaths,
  decodeMessage,
  DEPRECATED_APPLICATION_LINK_PATHS,
  type FieldMask,
  type GetApplicationLinkRequest,
  nowTimestamp,
  selectFields,
  type SetApplicationLinkRequest,
  plainJson,
  type JsonObject,
} from '@lorawan/api';
import { ErrLinkNotFound } from '../errors';
import { LINK_STORE, type LinkStore } from './application-link.store';
import { type ApplicationCache, LINK_CACHE } from '../common/application-cache';

type Empty = Record<string, never>;

/**
 * The application link registry (TTS `pkg/applicationserver/grpc.go` GetLink/SetLink/DeleteLink
 * and its Redis LinkRegistry): Get answers the masked paths only (no mask: `{}`) and
 * `pkg/redis:not_found` for an application without a link; Set is an upsert of the masked paths,
 * re-validates the whole link and answers all of it (an empty mask changes nothing); Delete is
 * idempotent. The removed fields' paths (`api_key`, `network_server_address`, `tls`) are allowed
 * and ignored. TTS publishes no events for links, so neither does this.
 */
@Injectable()
export class ApplicationLinkRegistry {
  constructor(
    @Inject(LINK_STORE) private readonly store: LinkStore,
    /** Message-path reads (`find`); without it every read goes to the store. */
    @Optional() @Inject(LINK_CACHE) private readonly cache?: ApplicationCache<ApplicationLink | undefined>,
  ) {}

  async get({ application_ids, field_mask }: GetApplicationLinkRequest): Promise<Partial<ApplicationLink>> {
    const paths = maskPaths(field_mask, ALLOWED_PATHS['As.GetLink']);
    const stored = await this.store.get(application_ids.application_id);
    if (!stored) throw ErrLinkNotFound.with();
    return selectFields(stored.link, paths);
  }

  async set({ application_ids, link, field_mask }: SetApplicationLinkRequest): Promise<Partial<ApplicationLink>> {
    const paths = maskPaths(field_mask, ALLOWED_PATHS['As.SetLink']);
    const applicationId = application_ids.application_id;
    const stored = await this.store.get(applicationId);
    if (paths.length === 0) return stored ? selectFields(stored.link, APPLICATION_LINK_TOP_LEVEL_PATHS) : {};
    const next = validateLink(applyFields(stored?.link ?? {}, plainJson(link), paths));
    const now = nowTimestamp();
    await this.store.put({ application_id: applicationId, link: next, created_at: stored?.created_at ?? now, updated_at: now });
    this.cache?.invalidate(applicationId);
    return selectFields(next, APPLICATION_LINK_TOP_LEVEL_PATHS);
  }

  async delete({ application_id }: ApplicationIdentifiers): Promise<Empty> {
    await this.store.delete(application_id);
    this.cache?.invalidate(application_id);
    return {};
  }

  /** The data plane's read: the application's link, or undefined when it has none (TTS `getLink`: an empty link). */
  async find(applicationId: string): Promise<ApplicationLink | undefined> {
    return this.cache ? this.cache.get(applicationId) : (await this.store.get(applicationId))?.link;
  }
}

/** The request's paths, checked against the RPC's allowed paths, without the removed fields' ones. */
function maskPaths(fieldMask: FieldMask | undefined, allowed: ReadonlySet<string>): string[] {
  const paths = fieldMask?.paths ?? [];
  checkFieldMaskPaths(paths, allowed);
  return paths.filter((p) => !(DEPRECATED_APPLICATION_LINK_PATHS as readonly string[]).includes(p));
}

/** The whole link re-validated (the device formatters' rules), as plain JSON; `null` and `""` parameters are unset. */
export function validateLink(link: ApplicationLink): ApplicationLink {
  const out = Object.fromEntries(Object.entries(plainJson(link)).filter(([, v]) => v !== null && v !== undefined)) as JsonObject;
  const formatters = out.default_formatters as JsonObject | undefined;
  if (formatters) {
    for (const key of Object.keys(formatters)) if (formatters[key] === null || formatters[key] === '') delete formatters[key];
  }
  return plainJson(decodeMessage(ApplicationLink, out)) as ApplicationLink;
}
