import type { ClassConstructor } from 'class-transformer';
import { secretPathsOf } from '../field-mask/secret-paths';
import { Gateway } from '../messages/identity';
import type { RpcDefinition } from './define-rpc';
import { nests, takesFieldMask } from './device-key-rights';
import { type EntityKind, Right } from './rights';

/** The entities whose messages hold `Secret` fields, with the rights reading and writing those need (TTS `gateway_registry.go`). */
const secretHolders = (): ReadonlyArray<{ kind: EntityKind; message: ClassConstructor<object>; read: Right; write: Right }> => [
  { kind: 'gateway', message: Gateway, read: Right.RIGHT_GATEWAY_READ_SECRETS, write: Right.RIGHT_GATEWAY_WRITE_SECRETS },
];

const PATHS = new Map<ClassConstructor<object>, string[]>();

/** The secret paths of a holder's message (cached: the contract does not change at run time). */
export function secretPaths(message: ClassConstructor<object>): string[] {
  let paths = PATHS.get(message);
  if (!paths) PATHS.set(message, (paths = secretPathsOf(message)));
  return paths;
}

/**
 * An RPC about one entity with the secrets rights its field mask calls for, decided by its
 * messages (as `withDeviceKeyRights`): a request carrying the entity's message writes it (the
 * write-secrets right), an answer carrying it reads it (the read-secrets right). Only RPCs that
 * take a field mask and check rights on that entity get them; a List, whose rights are the
 * caller's on a user or organization, leaves out the secrets of each entry the caller may not
 * read (the IS decides that per entry).
 */
export function withSecretRights<R extends RpcDefinition>(rpc: R): R {
  if (!takesFieldMask(rpc)) return rpc;
  for (const holder of secretHolders()) {
    if (rpc.entity?.kind !== holder.kind) continue;
    const paths = secretPaths(holder.message);
    if (paths.length === 0) continue;
    const rule = nests(rpc.request, holder.message)
      ? { paths, rights: [holder.write] }
      : rpc.response && nests(rpc.response, holder.message)
        ? { paths, rights: [holder.read] }
        : undefined;
    if (rule) return { ...rpc, maskRights: [...(rpc.maskRights ?? []), rule] };
  }
  return rpc;
}
