/**
 * What a contract field is to the key rights (TTS `grpc_deviceregistry.go` of each server):
 *
 * - `material`: the key itself, in the clear or wrapped (`KeyEnvelope.key`, `.encrypted_key`).
 *   Reading it needs `RIGHT_APPLICATION_DEVICES_READ_KEYS`, writing it `…_WRITE_KEYS`.
 * - `reference`: which key a device uses (`SessionKeys.session_key_id`, `RootKeys.root_key_id`,
 *   `KeyEnvelope.kek_label`). Readable with the entity's read right; writing it needs `…_WRITE_KEYS`.
 *
 * Marked once, on the message that holds the field; wherever that message nests, the paths that
 * reach it are derived from the contract (`keyPathsOf`), so a new field of a key type is protected
 * the day it is added, without a list to update.
 */
export type KeyRole = 'material' | 'reference';

const ROLES = new WeakMap<object, Map<string, KeyRole>>();

function mark(role: KeyRole): PropertyDecorator {
  return (target, key) => {
    const roles = ROLES.get(target) ?? new Map<string, KeyRole>();
    roles.set(String(key), role);
    ROLES.set(target, roles);
  };
}

/** A field holding a key, in the clear or wrapped: reading or writing it needs the key rights. */
export const KeyMaterial = (): PropertyDecorator => mark('material');

/** A field naming the key in use: writing it needs the write-keys right. */
export const KeyReference = (): PropertyDecorator => mark('reference');

/** The key role of a contract class's field, if it has one. */
export function keyRoleOf(cls: { prototype: object }, field: string): KeyRole | undefined {
  return ROLES.get(cls.prototype)?.get(field);
}
