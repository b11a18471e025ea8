import { Inject, Injectable } from '@nestjs/common';
import {
  type AppSKeyResponse,
  type HandleJoinRequest,
  JS_EVENTS,
  type JoinResponse,
  newUlid,
  nowTimestamp,
  type RpcContext,
  type SessionKeyRequest,
} from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { KeyVault, parseKeks } from '@lorawan/crypto';
import { isStackError } from '@lorawan/errors';
import { cfListBytes } from '@lorawan/lorawan';
import { DeviceRegistry, type KeyEnvelopeJson, type KeySealer, keySealerFor } from '@lorawan/registry';
import type { JsDevice } from '../end-devices/js-device';
import { ErrSessionKeysNotFound, ErrWrapKey } from '../errors';
import { acceptJoin, type JoinAcceptance, type JoinDevice, joinRequestIds } from './join-accept';
import { SESSION_KEY_STORE, type SessionKeyStore } from './session-key.store';

/**
 * The Join Server's join handling: finds the device by its EUIs, decides on the join-request with
 * its root keys and nonces (`acceptJoin`), and stores the new nonces with the device's optimistic
 * concurrency (a concurrent join of the same device retries and then meets the DevNonce rules),
 * then keeps the session keys in the session-key registry: a join-accept is only answered once
 * both are stored. Network keys are wrapped for the NS with the device's
 * `network_server_kek_label`, the AppSKey for the AS with `application_server_kek_label` (clear
 * without one). Events: `js.join.accept`, or `js.join.reject` with the reason (known devices).
 */
@Injectable()
export class JoinService {
  private readonly vault: KeyVault;
  private readonly sealer: KeySealer;

  constructor(
    private readonly registry: DeviceRegistry<JsDevice>,
    @Inject(SESSION_KEY_STORE) private readonly sessionKeys: SessionKeyStore,
    private readonly events: EventPublisher,
    @Inject(STACK_CONFIG) config: StackConfig,
  ) {
    this.vault = new KeyVault(parseKeks(config.keks));
    this.sealer = keySealerFor('js', config);
  }

  async handleJoin(request: HandleJoinRequest, ctx: RpcContext): Promise<JoinResponse> {
    const raw = Buffer.from(request.raw_payload, 'base64');
    const { join_eui, dev_eui } = joinRequestIds(raw);
    const found = await this.registry.getByEuis(join_eui, dev_eui);
    const correlationIds = [...new Set([...(request.correlation_ids ?? []), ...ctx.correlation_ids])];
    const eventCtx = { ...ctx, correlation_ids: correlationIds };
    const deviceIds = { device_ids: found.ids };
    let accepted: JoinAcceptance | undefined;
    try {
      await this.registry.modify(
        { application_id: found.ids.application_ids.application_id, device_id: found.ids.device_id },
        async (device, openKey) => {
          const rootKeys = device.root_keys;
          const joinDevice: JoinDevice = {
            app_key: rootKeys?.app_key ? openKey(rootKeys.app_key).key : undefined,
            nwk_key: rootKeys?.nwk_key ? openKey(rootKeys.nwk_key).key : undefined,
            last_dev_nonce: device.last_dev_nonce,
            used_dev_nonces: device.used_dev_nonces,
            last_join_nonce: device.last_join_nonce,
            resets_join_nonces: device.resets_join_nonces,
          };
          accepted = acceptJoin(joinDevice, {
            raw_payload: raw,
            selected_mac_version: request.selected_mac_version,
            net_id: request.net_id,
            dev_addr: request.dev_addr,
            downlink_settings: request.downlink_settings,
            rx_delay: request.rx_delay ?? 0,
            cf_list: cfListBytes(request.cf_list),
          });
          return { device: { ...device, ...accepted.nonces }, result: undefined };
          // The device as just read: its nonces written at once, unless another join wrote it in between.
        },
        { read: found },
      );
    } catch (err) {
      if (isStackError(err)) this.events.publish(JS_EVENTS.joinReject, deviceIds, { ctx: eventCtx, data: err.toDetails() });
      throw err;
    }
    const done = accepted as JoinAcceptance;
    const sessionKeyId = Buffer.from(newUlid()).toString('base64');
    // Stored once the nonces are: should this fail, the join is refused (no join-accept goes out) and the device joins again with its next DevNonce.
    await this.sessionKeys.put({
      join_eui,
      dev_eui,
      session_key_id: sessionKeyId,
      keys: Object.fromEntries(Object.entries(done.keys).map(([name, key]) => [name, this.sealer.seal({ key })])),
      created_at: nowTimestamp(),
    });
    const forNs = this.wrapper(found.network_server_kek_label);
    const forAs = this.wrapper(found.application_server_kek_label);
    this.events.publish(JS_EVENTS.joinAccept, deviceIds, { ctx: eventCtx });
    return {
      raw_payload: done.raw_payload.toString('base64'),
      session_keys: {
        session_key_id: sessionKeyId,
        f_nwk_s_int_key: forNs(done.keys.f_nwk_s_int_key),
        ...(done.keys.s_nwk_s_int_key ? { s_nwk_s_int_key: forNs(done.keys.s_nwk_s_int_key) } : {}),
        ...(done.keys.nwk_s_enc_key ? { nwk_s_enc_key: forNs(done.keys.nwk_s_enc_key) } : {}),
        app_s_key: forAs(done.keys.app_s_key),
      },
      correlation_ids: correlationIds,
    };
  }

  /** `AsJs.GetAppSKey`: the AppSKey of one accepted join, wrapped for the device's Application Server. */
  async appSKey({ session_key_id, dev_eui, join_eui }: SessionKeyRequest): Promise<AppSKeyResponse> {
    const [stored, device] = await Promise.all([this.sessionKeys.get(join_eui, dev_eui, session_key_id), this.registry.getByEuis(join_eui, dev_eui)]);
    const key = stored?.keys.app_s_key ? this.sealer.open(stored.keys.app_s_key).key : undefined;
    if (!key) throw ErrSessionKeysNotFound.with({ session_key_id });
    return { app_s_key: this.wrapper(device.application_server_kek_label)(key) };
  }

  /** A key for its receiver: wrapped with the KEK `label` names, clear without a label. */
  private wrapper(label: string | undefined): (key: string) => KeyEnvelopeJson {
    if (!label) return (key) => ({ key });
    if (!this.vault.has(label)) throw ErrWrapKey.with({ label });
    return (key) => this.vault.wrap(key, label);
  }
}
