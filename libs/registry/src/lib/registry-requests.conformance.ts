import type { DataSource } from 'typeorm';
import { decodeMessage, DeleteEndDeviceRequest, GetEndDeviceRequest, type RpcContext, SetEndDeviceRequest } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { InProcessBroker } from '@lorawan/transport';
import { type ErrorDetails, isStackError } from '@lorawan/errors';

/**
 * Test helpers of the registry specs: requests decoded exactly as the RPC server hands them to a
 * registry, the TTS error details a call fails with, and what a row holds at rest.
 */
export const setReq = (end_device: object, paths: string[]) => decodeMessage(SetEndDeviceRequest, { end_device, field_mask: { paths } });
export const getReq = (end_device_ids: object, paths: string[] = []) => decodeMessage(GetEndDeviceRequest, { end_device_ids, field_mask: { paths } });
export const delReq = (end_device_ids: object) => decodeMessage(DeleteEndDeviceRequest, end_device_ids);

/** The error a promise rejects with, as TTS ErrorDetails (namespace, name, code, attributes, cause). */
export async function errorOf(promise: Promise<unknown>): Promise<ErrorDetails> {
  try {
    await promise;
  } catch (err) {
    if (isStackError(err)) return err.toDetails();
    throw err;
  }
  throw new Error('expected the call to fail');
}

/** The raw `fields` column of a device's row. */
export async function rawFieldsOf(ds: DataSource, applicationId: string, deviceId: string): Promise<string | undefined> {
  const rows = (await ds.query('SELECT fields FROM end_devices WHERE application_id = ? AND device_id = ?', [applicationId, deviceId])) as Array<{
    fields: string;
  }>;
  return rows[0]?.fields;
}

/** The context of registry calls whose events a spec does not look at. */
export const CTX: RpcContext = { request_id: 'spec', correlation_ids: ['rpc:/ttn.lorawan.v3.Spec/Call:spec'] };

/** A publisher whose events nobody receives, for registries whose events a spec does not look at. */
export const unobservedEvents = (): EventPublisher => new EventPublisher(new InProcessBroker());
