import { Inject, Injectable } from '@nestjs/common';
import { type Application, IS_EVENTS, Right } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { AccessInvalidator } from '../../access-invalidator';
import { ErrApplicationHasDevices, ErrApplicationNotFound } from '../../errors';
import { API_KEY_CLEANUP, type ApiKeyCleanup, IDENTITY_DIRECTORY, type IdentityDirectory } from '../../identity.contracts';
import { COLLABORATOR_STORE, type Collaborator, type CollaboratorStore } from '../collaborators/collaborator.model';
import { withoutZeroValues } from '../common/document';
import { copiedFields, describedFields } from '../registry/entity.mapper';
import { collaboratedKind } from '../registry/entity-kind';
import { CollaboratedEntityRegistry } from '../registry/entity-registry.service';
import { USER_STORE, type UserStore } from '../users/user.model';
import { APPLICATION_STORE, type ApplicationStore, type IsApplication } from './application.model';

/** Applications (TTS `pkg/identityserver/application_registry.go`). */
export const APPLICATION_KIND = collaboratedKind<'application', IsApplication, Application>({
  kind: 'application',
  registry: 'ApplicationRegistry',
  events: IS_EVENTS.application,
  listRight: Right.RIGHT_USER_APPLICATIONS_LIST,
  infoRight: Right.RIGHT_APPLICATION_INFO,
  pick: pickApplicationFields,
  notFound: (application_id) => ErrApplicationNotFound.with({ application_id }),
  removalBlocked: (count) => ErrApplicationHasDevices.with({ count }),
});

/**
 * The ApplicationRegistry: applications and their first collaborator. Delete and Purge are
 * refused while the IS holds devices of the application.
 */
@Injectable()
export class ApplicationRegistryService extends CollaboratedEntityRegistry<'application', IsApplication, Application, ApplicationStore> {
  constructor(
    @Inject(APPLICATION_STORE) store: ApplicationStore,
    @Inject(USER_STORE) users: UserStore,
    @Inject(COLLABORATOR_STORE) collaborators: CollaboratorStore,
    @Inject(IDENTITY_DIRECTORY) directory: IdentityDirectory,
    @Inject(API_KEY_CLEANUP) apiKeys: ApiKeyCleanup,
    invalidator: AccessInvalidator,
    events: EventPublisher,
  ) {
    super(APPLICATION_KIND, store, { users, collaborators, directory, apiKeys, invalidator, events });
  }

  protected insert(application: IsApplication, collaborator: Collaborator) {
    return this.store.create(application, collaborator);
  }

  protected replace(application: IsApplication, expectedUpdatedAt: string) {
    return this.store.replace(application, expectedUpdatedAt);
  }

  /** The device count first: its error names the count. */
  protected override async beforePurge(applicationId: string): Promise<void> {
    const count = await this.store.deviceCount(applicationId);
    if (count > 0) throw ErrApplicationHasDevices.with({ count });
  }
}

/** The fields of a request's Application the IS stores, except contacts (which depend on the operation). */
export function pickApplicationFields(app: Application): Omit<IsApplication, 'created_at' | 'updated_at' | 'administrative_contact' | 'technical_contact'> {
  return withoutZeroValues({
    ids: { application_id: app.ids.application_id },
    ...describedFields(app),
    ...copiedFields(app, ['network_server_address', 'application_server_address', 'join_server_address']),
  });
}
