import { Inject, Injectable } from '@nestjs/common';
import {
  type ApplicationPackageAssociation,
  type ApplicationPackageAssociationIdentifiers,
  type ApplicationPackageDefaultAssociation,
  type ApplicationPackageDefaultAssociationIdentifiers,
  type ApplicationPackages,
  checkFieldMaskPaths,
  type EndDeviceIdentifiers,
  type GetApplicationPackageAssociationRequest,
  type GetApplicationPackageDefaultAssociationRequest,
  type ListApplicationPackageAssociationRequest,
  type ListApplicationPackageDefaultAssociationRequest,
  nowTimestamp,
  selectFields,
  type SetApplicationPackageAssociationRequest,
  type SetApplicationPackageDefaultAssociationRequest,
} from '@lorawan/api';
import { WithTotal } from '@lorawan/component';
import { ErrValidation } from '@lorawan/errors';
import { ErrAssociationNotFound, ErrPackageNotFound } from '../../errors';
import { APPLICATION_PACKAGES, isKnownPackage } from './application-packages';
import { type AssociationOwner, PACKAGE_ASSOCIATION_STORE, type PackageAssociationRecord, type PackageAssociationStore } from './package-association.store';
import { PACKAGE_USAGE_CACHE, type PackageUsageCache } from './package-usage-cache';

/** What Set may write (TTS: `package_name`, `data`). */
export const ASSOCIATION_SET_PATHS: ReadonlySet<string> = new Set(['package_name', 'data']);
/** What Get and List may select. */
export const ASSOCIATION_GET_PATHS: ReadonlySet<string> = new Set(['package_name', 'data', 'created_at', 'updated_at']);
/** Always returned (TTS `appendImplicitAssociationsGetPaths`: `package_name`; and the identifiers). */
const IMPLICIT_PATHS = ['ids', 'package_name'];

type Empty = Record<string, never>;
type Association = ApplicationPackageAssociation | ApplicationPackageDefaultAssociation;

/**
 * The ApplicationPackageRegistry (TTS `pkg/applicationserver/io/packages/grpc.go` and its Redis
 * registry): a device's associations and an application's default associations, each an FPort →
 * package (`storage-integration`) with its `data`. Set is an upsert of the masked paths; Delete is
 * idempotent. Every write drops the application's cached package usage on every replica, so the
 * integrations see it with the next message. TTS publishes no events for associations.
 */
@Injectable()
export class PackageRegistryService {
  constructor(
    @Inject(PACKAGE_ASSOCIATION_STORE) private readonly store: PackageAssociationStore,
    @Inject(PACKAGE_USAGE_CACHE) private readonly usage: Pick<PackageUsageCache, 'invalidate'>,
  ) {}

  list(_ids: EndDeviceIdentifiers): ApplicationPackages {
    return { packages: APPLICATION_PACKAGES.map((p) => ({ ...p })) };
  }

  getAssociation({ ids, field_mask }: GetApplicationPackageAssociationRequest): Promise<Partial<Association>> {
    return this.get(deviceOwner(ids.end_device_ids), ids.f_port, field_mask?.paths);
  }

  getDefaultAssociation({ ids, field_mask }: GetApplicationPackageDefaultAssociationRequest): Promise<Partial<Association>> {
    return this.get({ applicationId: ids.application_ids.application_id }, ids.f_port, field_mask?.paths);
  }

  async listAssociations({ ids, limit, page, field_mask }: ListApplicationPackageAssociationRequest) {
    const { items, total } = await this.listOf(deviceOwner(ids), limit, page, field_mask?.paths);
    return new WithTotal(items.length > 0 ? { associations: items } : {}, total);
  }

  async listDefaultAssociations({ ids, limit, page, field_mask }: ListApplicationPackageDefaultAssociationRequest) {
    const { items, total } = await this.listOf({ applicationId: ids.application_id }, limit, page, field_mask?.paths);
    return new WithTotal(items.length > 0 ? { defaults: items } : {}, total);
  }

  setAssociation({ association, field_mask }: SetApplicationPackageAssociationRequest): Promise<Partial<Association>> {
    return this.set(deviceOwner(association.ids.end_device_ids), association, field_mask?.paths);
  }

  setDefaultAssociation({ default: association, field_mask }: SetApplicationPackageDefaultAssociationRequest): Promise<Partial<Association>> {
    return this.set({ applicationId: association.ids.application_ids.application_id }, association, field_mask?.paths);
  }

  deleteAssociation(ids: ApplicationPackageAssociationIdentifiers): Promise<Empty> {
    return this.delete(deviceOwner(ids.end_device_ids), ids.f_port);
  }

  deleteDefaultAssociation(ids: ApplicationPackageDefaultAssociationIdentifiers): Promise<Empty> {
    return this.delete({ applicationId: ids.application_ids.application_id }, ids.f_port);
  }

  private async get(owner: AssociationOwner, fPort: number, paths: readonly string[] = []): Promise<Partial<Association>> {
    checkFieldMaskPaths(paths, ASSOCIATION_GET_PATHS);
    const record = await this.store.get(owner, fPort);
    if (!record) throw ErrAssociationNotFound.with();
    return present(record, paths);
  }

  private async listOf(owner: AssociationOwner, limit = 0, page = 0, paths: readonly string[] = []) {
    checkFieldMaskPaths(paths, ASSOCIATION_GET_PATHS);
    const { items, total } = await this.store.list(owner, limit, limit > 0 ? (Math.max(page, 1) - 1) * limit : 0);
    return { items: items.map((r) => present(r, paths)), total };
  }

  /**
   * Upsert of the masked paths (`package_name`, `data`); without a mask, of those the body holds.
   * The result must name a package of this AS.
   */
  private async set(owner: AssociationOwner, association: Association, maskPaths: readonly string[] = []): Promise<Partial<Association>> {
    const paths = maskPaths.length > 0 ? maskPaths : [...ASSOCIATION_SET_PATHS].filter((p) => association[p as keyof Association] !== undefined);
    checkFieldMaskPaths(paths, ASSOCIATION_SET_PATHS);
    const fPort = association.ids.f_port;
    const existing = await this.store.get(owner, fPort);
    const now = nowTimestamp();
    const next: PackageAssociationRecord = {
      ...owner,
      fPort,
      packageName: paths.includes('package_name') ? (association.package_name ?? '') : (existing?.packageName ?? ''),
      data: paths.includes('data') ? association.data : existing?.data,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    if (next.packageName === '') throw ErrValidation.with({ field: 'package_name', name: `${messageName(owner)}ValidationError`, reason: 'value is required' });
    if (!isKnownPackage(next.packageName)) throw ErrPackageNotFound.with({ name: next.packageName });
    await this.store.put(next);
    this.usage.invalidate(owner.applicationId);
    return present(next, paths);
  }

  private async delete(owner: AssociationOwner, fPort: number): Promise<Empty> {
    await this.store.delete(owner, fPort);
    this.usage.invalidate(owner.applicationId);
    return {};
  }
}

function deviceOwner(ids: EndDeviceIdentifiers): AssociationOwner {
  return { applicationId: ids.application_ids.application_id, deviceId: ids.device_id };
}

function messageName(owner: AssociationOwner): string {
  return owner.deviceId === undefined ? 'ApplicationPackageDefaultAssociation' : 'ApplicationPackageAssociation';
}

/** The contract's message of a record, reduced to the implicit paths and the mask's. */
function present(r: PackageAssociationRecord, paths: readonly string[]): Partial<Association> {
  const application_ids = { application_id: r.applicationId };
  const ids = r.deviceId === undefined ? { application_ids, f_port: r.fPort } : { end_device_ids: { device_id: r.deviceId, application_ids }, f_port: r.fPort };
  const message = {
    ids,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    package_name: r.packageName,
    ...(r.data === undefined ? {} : { data: r.data }),
  } as Association;
  return selectFields(message, [...IMPLICIT_PATHS, ...paths]);
}
