import { Inject, Injectable } from '@nestjs/common';
import {
  ALLOWED_PATHS,
  applyFields,
  checkFieldMaskPaths,
  type CreateUserRequest,
  entityIdentifiers,
  type GetUserRequest,
  hasAnyField,
  IS_EVENTS,
  type ListUsersRequest,
  nowTimestamp,
  type RpcContext,
  selectFields,
  type UpdateUserRequest,
  type User,
  type UserIdentifiers,
  plainJson,
} from '@lorawan/api';
import { EventPublisher, WithTotal } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { hashSecret } from '@lorawan/crypto';
import { AccessInvalidator } from '../../access-invalidator';
import { ErrAlreadyExists, ErrDeleteBootstrapAdmin, ErrEntityConcurrentUpdate, ErrIdTaken, ErrUserNotFound, ErrUserUpdateAdminField } from '../../errors';
import { isAdminCaller } from '../common/caller';
import { withoutZeroValues } from '../common/document';
import { listQuery } from '../common/entity-list';
import { DEFAULT_PATHS } from '../common/list-access';
import { updateOptimistically } from '../common/optimistic';
import { effectiveUpdatePaths, type UpdatePathRules } from '../common/update-paths';
import { checkPasswordStrength } from './password-policy';
import { type IsUser, USER_STORE, type UserStore } from './user.model';

/** PBKDF2 rounds of password hashes (TTS `pkg/auth/pbkdf2` default). */
export const PASSWORD_HASH_ITERATIONS = 20_000;

const UPDATE_RULES: UpdatePathRules = {
  readOnly: ['ids', 'ids.user_id', 'ids.email'],
  ignored: ['created_at', 'updated_at', 'deleted_at', 'password_updated_at'],
};

/** Fields only admins may change (TTS `updateUser`: `user_update_admin_field`). */
const ADMIN_FIELDS = ['primary_email_address_validated_at', 'require_password_update', 'state', 'state_description', 'admin'];

type Empty = Record<string, never>;

const EVENTS = IS_EVENTS.user;
const idsOf = (id: string) => entityIdentifiers({ kind: 'user', id });

/**
 * The UserRegistry (TTS `pkg/identityserver/user_registry.go`), and the bootstrap admin user.
 * Create, Update and Delete publish their `user.*` event once they succeeded.
 */
@Injectable()
export class UserRegistryService {
  constructor(
    @Inject(USER_STORE) private readonly store: UserStore,
    @Inject(STACK_CONFIG) private readonly config: StackConfig,
    private readonly invalidator: AccessInvalidator,
    private readonly events: EventPublisher,
  ) {}

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
    this.events.publish(EVENTS.create, idsOf(ids.user_id), { ctx });
    return created;
  }

  async get({ user_ids, field_mask }: GetUserRequest): Promise<Partial<IsUser>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['UserRegistry.Get']);
    return selectFields(await this.mustGet(user_ids.user_id), [...DEFAULT_PATHS, ...paths]);
  }

  /** Admins only (RPC table). */
  async list(req: ListUsersRequest): Promise<WithTotal<{ users?: Partial<IsUser>[] }>> {
    const paths = req.field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['UserRegistry.List']);
    const { users, total } = await this.store.list(listQuery(req, 'user_id'));
    const selected = users.map((user) => selectFields(user, [...DEFAULT_PATHS, ...paths]));
    return new WithTotal(selected.length > 0 ? { users: selected } : {}, total);
  }

  /** Applies the masked paths; `admin`, `state` and the other admin fields only for admins. The event's data: the request's paths. */
  async update({ user, field_mask }: UpdateUserRequest, ctx: RpcContext): Promise<Partial<IsUser>> {
    const requested = field_mask?.paths ?? [];
    checkFieldMaskPaths(requested, ALLOWED_PATHS['UserRegistry.Update']);
    let paths = effectiveUpdatePaths(requested, UPDATE_RULES);
    if (!isAdminCaller(ctx.caller)) {
      const field = paths.find((p) => ADMIN_FIELDS.includes(p));
      if (field) throw ErrUserUpdateAdminField.with({ field });
    }
    // A new state without a description clears the old description (TTS).
    if (hasAnyField(paths, 'state') && !hasAnyField(paths, 'state_description')) paths = [...paths, 'state_description'];
    const id = user.ids.user_id;
    const changes = pickUserFields(user);
    const updated = await updateOptimistically(
      () => this.mustGet(id),
      (current) => withEmailValidation(current, { ...applyFields(current, changes, paths), updated_at: nowTimestamp() }, paths),
      (next, expected) => this.store.replace(next, expected),
      () => ErrEntityConcurrentUpdate.with({ entity_type: 'user', entity_id: id }),
    );
    // The user's rights follow `admin` and `state`: the gateways' cached resolutions of its keys go.
    if (hasAnyField(paths, 'admin') || hasAnyField(paths, 'state')) this.invalidator.invalidate({ entity: { kind: 'user', id } });
    this.events.publish(EVENTS.update, idsOf(id), { ctx, data: [...requested] });
    return selectFields(updated, [...DEFAULT_PATHS, ...paths]);
  }

  /** Soft delete: the ID stays taken, the user's keys stop working. The bootstrap admin stays. */
  async delete({ user_id }: UserIdentifiers, ctx: RpcContext): Promise<Empty> {
    if (user_id === this.config.adminUserId) throw ErrDeleteBootstrapAdmin.with({ user_id });
    if (!(await this.store.softDelete(user_id, nowTimestamp()))) throw ErrUserNotFound.with({ user_id });
    this.invalidator.invalidate({ entity: { kind: 'user', id: user_id } });
    this.events.publish(EVENTS.delete, idsOf(user_id), { ctx });
    return {};
  }

  private async mustGet(userId: string): Promise<IsUser> {
    const user = await this.store.get(userId);
    if (!user) throw ErrUserNotFound.with({ user_id: userId });
    return user;
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
    name: user.name,
    description: user.description,
    attributes: user.attributes && Object.keys(user.attributes).length > 0 ? plainJson(user.attributes) : undefined,
    primary_email_address: user.primary_email_address,
    primary_email_address_validated_at: user.primary_email_address_validated_at,
    require_password_update: user.require_password_update,
    state: user.state === 'STATE_REQUESTED' ? undefined : user.state,
    state_description: user.state_description,
    admin: user.admin,
  });
}
