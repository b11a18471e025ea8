import { Inject, Injectable } from '@nestjs/common';
import {
  ALLOWED_PATHS,
  checkFieldMaskPaths,
  type CreateUserRequest,
  hasAnyField,
  IS_EVENTS,
  type ListUsersRequest,
  nowTimestamp,
  type RpcContext,
  selectFields,
  type User,
  type UserIdentifiers,
} from '@lorawan/api';
import { EventPublisher, WithTotal } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { hashSecret } from '@lorawan/crypto';
import { AccessInvalidator } from '../../access-invalidator';
import { ErrAlreadyExists, ErrDeleteBootstrapAdmin, ErrIdTaken, ErrUserNotFound, ErrUserUpdateAdminField } from '../../errors';
import { isAdminCaller } from '../common/caller';
import { withoutZeroValues } from '../common/document';
import { copiedFields, describedFields } from '../registry/entity.mapper';
import { listQuery } from '../common/entity-list';
import { DEFAULT_PATHS } from '../common/list-access';
import { entityKind } from '../registry/entity-kind';
import { EntityRegistry, type UpdatePlan } from '../registry/entity-registry.service';
import { checkPasswordStrength } from './password-policy';
import { type IsUser, USER_STORE, type UserStore } from './user.model';

/** PBKDF2 rounds of password hashes (TTS `pkg/auth/pbkdf2` default). */
export const PASSWORD_HASH_ITERATIONS = 20_000;

/** Users (TTS `pkg/identityserver/user_registry.go`): no collaborators, no restore or purge here. */
export const USER_KIND = entityKind<'user', IsUser, User>({
  kind: 'user',
  registry: 'UserRegistry',
  events: IS_EVENTS.user,
  updateRules: {
    readOnly: ['ids', 'ids.user_id', 'ids.email'],
    ignored: ['created_at', 'updated_at', 'deleted_at', 'password_updated_at'],
  },
  pick: pickUserFields,
  notFound: (user_id) => ErrUserNotFound.with({ user_id }),
});

/** Fields only admins may change (TTS `updateUser`: `user_update_admin_field`). */
const ADMIN_FIELDS = ['primary_email_address_validated_at', 'require_password_update', 'state', 'state_description', 'admin'];

/**
 * The UserRegistry, and the bootstrap admin user. Create, Update and Delete publish their
 * `user.*` event once they succeeded.
 */
@Injectable()
export class UserRegistryService extends EntityRegistry<'user', IsUser, User, UserStore> {
  constructor(
    @Inject(USER_STORE) store: UserStore,
    @Inject(STACK_CONFIG) private readonly config: StackConfig,
    invalidator: AccessInvalidator,
    events: EventPublisher,
  ) {
    super(USER_KIND, store, invalidator, events);
  }

  /** Creates the configured admin user (`admin`, approved) unless it exists; safe when replicas race. */
  async ensureAdminUser(): Promise<boolean> {
    const now = nowTimestamp();
    const user: IsUser = { ids: { user_id: this.config.adminUserId }, created_at: now, updated_at: now, admin: true, state: 'STATE_APPROVED' };
    return (await this.store.create(user)).ok;
  }

  /** Admins only (RPC table): stores the user (approved unless a state is given), its password only as a PBKDF2 hash. */
  async create({ user }: CreateUserRequest, ctx: RpcContext): Promise<IsUser> {
    if (user.password) checkPasswordStrength(user.password);
    const now = nowTimestamp();
    const { ids, ...fields } = pickUserFields(user);
    // Only admins create users here (no self-registration), so a user they create without a state is approved.
    const state = user.state === undefined ? 'STATE_APPROVED' : fields.state;
    const created: IsUser = {
      ids,
      created_at: now,
      updated_at: now,
      ...fields,
      ...(state ? { state } : {}),
      ...(user.password ? { password_updated_at: now } : {}),
    };
    const passwordHash = user.password ? await hashSecret(user.password, PASSWORD_HASH_ITERATIONS) : undefined;
    if (!(await this.store.create(created, passwordHash)).ok) throw ErrIdTaken.with({}, ErrAlreadyExists.with());
    this.events.publish(this.spec.events.create, this.identifiers(ids), { ctx });
    return created;
  }

  /** Admins only (RPC table). */
  async list(req: ListUsersRequest): Promise<WithTotal<{ users?: Partial<IsUser>[] }>> {
    const paths = req.field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['UserRegistry.List']);
    const { users, total } = await this.store.list(listQuery(req, 'user_id'));
    const selected = users.map((user) => selectFields(user, [...DEFAULT_PATHS, ...paths]));
    return new WithTotal(selected.length > 0 ? { users: selected } : {}, total);
  }

  /** The bootstrap admin stays; a deleted user's keys stop working. */
  override async delete(ids: UserIdentifiers, ctx: RpcContext): Promise<Record<string, never>> {
    if (ids.user_id === this.config.adminUserId) throw ErrDeleteBootstrapAdmin.with({ user_id: ids.user_id });
    return super.delete(ids, ctx);
  }

  protected replace(user: IsUser, expectedUpdatedAt: string) {
    return this.store.replace(user, expectedUpdatedAt);
  }

  /** `admin`, `state` and the other admin fields only for admins; a new state without a description clears the old description (TTS). */
  protected override async planUpdate(user: User, effective: string[], ctx: RpcContext): Promise<UpdatePlan<IsUser>> {
    if (!isAdminCaller(ctx.caller)) {
      const field = effective.find((p) => ADMIN_FIELDS.includes(p));
      if (field) throw ErrUserUpdateAdminField.with({ field });
    }
    const paths = hasAnyField(effective, 'state') && !hasAnyField(effective, 'state_description') ? [...effective, 'state_description'] : effective;
    return super.planUpdate(user, paths, ctx);
  }

  protected override changed(current: IsUser, next: IsUser, paths: readonly string[]): IsUser {
    return withEmailValidation(current, next, paths);
  }

  /** The user's rights follow `admin` and `state`: the gateways' cached resolutions of its keys go. */
  protected override updated(userId: string, paths: readonly string[]): void {
    if (hasAnyField(paths, 'admin') || hasAnyField(paths, 'state')) this.invalidate(userId);
  }
}

/** A new primary e-mail address is not validated, unless the update says when it was. */
function withEmailValidation(current: IsUser, next: IsUser, paths: readonly string[]): IsUser {
  if (next.primary_email_address === current.primary_email_address || hasAnyField(paths, 'primary_email_address_validated_at')) return next;
  const { primary_email_address_validated_at: _stale, ...rest } = next;
  return rest;
}

/** The fields of a request's User the IS stores as such (not the password; `state` zero value left out). */
export function pickUserFields(user: User): Omit<IsUser, 'created_at' | 'updated_at'> {
  return withoutZeroValues({
    ids: { user_id: user.ids.user_id },
    ...describedFields(user),
    ...copiedFields(user, ['primary_email_address', 'primary_email_address_validated_at', 'require_password_update']),
    state: user.state === 'STATE_REQUESTED' ? undefined : user.state,
    ...copiedFields(user, ['state_description', 'admin']),
  });
}
