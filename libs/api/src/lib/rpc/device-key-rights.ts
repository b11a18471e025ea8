import type { ClassConstructor } from 'class-transformer';
import { KEY_PATHS } from '../field-mask/allowed-paths';
import { messageFields } from '../json/message-fields';
import { EndDevice } from '../messages/end-device';
import type { MaskRight, RpcDefinition } from './define-rpc';
import { Right } from './rights';

/** Reading key material of a device needs `RIGHT_APPLICATION_DEVICES_READ_KEYS` (TTS, every registry). */
export const READ_DEVICE_KEYS: MaskRight = { paths: KEY_PATHS.read, rights: [Right.RIGHT_APPLICATION_DEVICES_READ_KEYS] };
/** Writing key material or a key reference of a device needs `RIGHT_APPLICATION_DEVICES_WRITE_KEYS`. */
export const WRITE_DEVICE_KEYS: MaskRight = { paths: KEY_PATHS.write, rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE_KEYS] };

/**
 * An RPC with the key rights its field mask calls for, decided by its messages rather than by a
 * list of RPCs: one whose request carries end devices writes them (`WRITE_DEVICE_KEYS`; its answer
 * shows only what it wrote, as TTS's Set); one whose answer carries end devices reads them
 * (`READ_DEVICE_KEYS`). Only RPCs that take a field mask get them: without a mask nothing is
 * selected. So a new device route, in any registry, is guarded the day it is added.
 */
export function withDeviceKeyRights<R extends RpcDefinition>(rpc: R): R {
  if (!takesFieldMask(rpc)) return rpc;
  const rule = nests(rpc.request, EndDevice) ? WRITE_DEVICE_KEYS : rpc.response && nests(rpc.response, EndDevice) ? READ_DEVICE_KEYS : undefined;
  return rule ? { ...rpc, maskRights: [rule, ...(rpc.maskRights ?? [])] } : rpc;
}

/** Whether an RPC's request carries a field mask (its own, or its items' in a batch). */
export function takesFieldMask(rpc: RpcDefinition): boolean {
  return rpc.fieldMasksAt !== undefined || messageFields(rpc.request).some((f) => f.name === 'field_mask');
}

/** Whether `cls` is `target` or holds it in an embedded, repeated or map message field, at any depth. */
export function nests(cls: ClassConstructor<object>, target: ClassConstructor<object>, seen = new Set<ClassConstructor<object>>()): boolean {
  if (cls === target) return true;
  if (seen.has(cls)) return false;
  seen.add(cls);
  return messageFields(cls).some(({ type }) => type !== undefined && nests(type, target, seen));
}
