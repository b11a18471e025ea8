import { Inject, Injectable } from '@nestjs/common';
import { type CallerIdentity, IS_EVENTS, type Organization, Right } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { AccessInvalidator } from '../../access-invalidator';
import { ErrNestedOrganizations, ErrOrganizationHasEntities, ErrOrganizationNotFound, ErrUserNotFound } from '../../errors';
import { API_KEY_CLEANUP, type ApiKeyCleanup } from '../../identity.contracts';
import { COLLABORATOR_STORE, type Collaborator, type CollaboratorStore } from '../collaborators/collaborator.model';
import type { AccountRef } from '../common/accounts';
import { callerUserId } from '../common/caller';
import { withoutZeroValues } from '../common/document';
import { describedFields } from '../registry/entity.mapper';
import { collaboratedKind, type ListRequestOf } from '../registry/entity-kind';
import { CollaboratedEntityRegistry } from '../registry/entity-registry.service';
import { USER_STORE, type UserStore } from '../users/user.model';
import { type IsOrganization, ORGANIZATION_STORE, type OrganizationStore } from './organization.model';

/** Organizations (TTS `pkg/identityserver/organization_registry.go`). */
export const ORGANIZATION_KIND = collaboratedKind<'organization', IsOrganization, Organization>({
  kind: 'organization',
  registry: 'OrganizationRegistry',
  events: IS_EVENTS.organization,
  listRight: Right.RIGHT_USER_ORGANIZATIONS_LIST,
  infoRight: Right.RIGHT_ORGANIZATION_INFO,
  pick: pickOrganizationFields,
  notFound: (organization_id) => ErrOrganizationNotFound.with({ organization_id }),
  removalBlocked: (count) => ErrOrganizationHasEntities.with({ count }),
});

/**
 * The OrganizationRegistry: organizations and their first member. Organizations do not nest: a
 * user creates them, and they are listed for a user. The ID must be free among users and
 * organizations (`id_taken`). Delete is refused while the organization collaborates on live
 * applications, gateways or clients; Purge also removes its collaborations.
 */
@Injectable()
export class OrganizationRegistryService extends CollaboratedEntityRegistry<'organization', IsOrganization, Organization, OrganizationStore> {
  constructor(
    @Inject(ORGANIZATION_STORE) store: OrganizationStore,
    @Inject(USER_STORE) users: UserStore,
    @Inject(COLLABORATOR_STORE) collaborators: CollaboratorStore,
    @Inject(API_KEY_CLEANUP) apiKeys: ApiKeyCleanup,
    invalidator: AccessInvalidator,
    events: EventPublisher,
  ) {
    super(ORGANIZATION_KIND, store, { users, collaborators, apiKeys, invalidator, events });
  }

  protected override admitCollaborator(account: AccountRef): void {
    if (account.kind === 'organization') throw ErrNestedOrganizations.with();
  }

  /** The first member is a user (any state). */
  protected override async requireAccount(account: AccountRef): Promise<void> {
    if (!(await this.users.get(account.id))) throw ErrUserNotFound.with({ user_id: account.id });
  }

  protected insert(organization: IsOrganization, member: Collaborator) {
    return this.store.create(organization, member);
  }

  protected replace(organization: IsOrganization, expectedUpdatedAt: string) {
    return this.store.replace(organization, expectedUpdatedAt);
  }

  /** An organization's own key lists none: organizations do not nest. */
  protected override admitListing(req: ListRequestOf, caller: CallerIdentity | undefined): void {
    if (req.collaborator?.organization_ids || (!req.collaborator && caller?.owner?.kind === 'organization')) throw ErrNestedOrganizations.with();
  }

  protected override listingAccount(caller: CallerIdentity | undefined): string | undefined {
    return callerUserId(caller);
  }

  /**
   * Drops the access cached for the organization, and everything else cached: its members reach
   * applications, gateways and clients through it, so their rights on those changed too.
   */
  protected override invalidate(organizationId: string): void {
    super.invalidate(organizationId);
    this.invalidator.invalidate({ all: true });
  }
}

/** The fields of a request's Organization the IS stores, except contacts (which depend on the operation). */
export function pickOrganizationFields(org: Organization): Omit<IsOrganization, 'created_at' | 'updated_at' | 'administrative_contact' | 'technical_contact'> {
  return withoutZeroValues({
    ids: { organization_id: org.ids.organization_id },
    ...describedFields(org),
    fanout_notifications: org.fanout_notifications,
  });
}
