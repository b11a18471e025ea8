import { Inject, Injectable, Logger } from '@nestjs/common';
import type { KeyEnvelope, RpcContext, SessionKeyRequest } from '@lorawan/api';
import { RpcInvoker } from '@lorawan/component';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { KeyVault, parseKeks } from '@lorawan/crypto';
import { Code, isErrorDetails } from '@lorawan/errors';
import { ErrJoinServerUnavailable, ErrNoDevEUI, ErrNoJoinEUI, fetchAppSKeyError } from '../errors';

/** Which session's AppSKey: the JS's session key ID and the device's EUIs, which a device may lack (then `no_dev_eui`/`no_join_eui`). */
export type AppSKeyRequest = Pick<SessionKeyRequest, 'session_key_id'> & Partial<Pick<SessionKeyRequest, 'dev_eui' | 'join_eui'>>;

/**
 * The AppSKeys of the AS's sessions (TTS `applicationserver.go` handleJoinAccept and
 * fetchAppSKey): the envelope the NS brings, opened with the AS's KEKs (`KEKS`: the JS wraps the
 * key with the device's `application_server_kek_label`, RFC 3394), or, when there is none, the
 * key fetched from the Join Server by its session key ID (`AsJs.GetAppSKey`). A KEK label the AS
 * does not have is `pkg/crypto:kek_not_found`; a JS that does not answer, or does not know the
 * keys, is `app_s_key` caused by `join_server_unavailable` (TTS would try an interop JS next: we
 * have none). Keys are returned as plain hex, never logged.
 */
@Injectable()
export class AppSKeys {
  private readonly logger = new Logger('AppSKeys');
  private readonly vault: KeyVault;

  constructor(
    @Inject(RpcInvoker) private readonly rpc: RpcInvoker,
    @Inject(STACK_CONFIG) config: StackConfig,
  ) {
    this.vault = new KeyVault(parseKeks(config.keks));
  }

  /** The plain AppSKey: `envelope`'s when it holds one, else the Join Server's. */
  async appSKey(envelope: KeyEnvelope | undefined, request: AppSKeyRequest, ctx: RpcContext): Promise<string> {
    const given = envelope && this.vault.unwrap(envelope);
    if (given) return given;
    const fetched = this.vault.unwrap(await this.fetch(request, ctx));
    if (!fetched) throw fetchAppSKeyError(ErrJoinServerUnavailable.with({ join_eui: request.join_eui }));
    return fetched;
  }

  /** `AsJs.GetAppSKey`: the key's envelope, as the JS wrapped it for this AS. */
  private async fetch({ session_key_id, dev_eui, join_eui }: AppSKeyRequest, ctx: RpcContext): Promise<KeyEnvelope> {
    if (!dev_eui) throw ErrNoDevEUI.with();
    if (!join_eui) throw ErrNoJoinEUI.with();
    try {
      const reply = await this.rpc.invoke('AsJs.GetAppSKey', { session_key_id, dev_eui, join_eui }, ctx);
      if (reply?.app_s_key) return reply.app_s_key;
    } catch (err) {
      // The JS's error reply (other than not knowing the keys) is the cause; a failed call means no JS answered.
      if (isErrorDetails(err) && err.code !== Code.NotFound) throw fetchAppSKeyError(err);
      if (!isErrorDetails(err)) this.logger.warn({ join_eui, error: (err as Error)?.message ?? String(err) }, 'Join Server not reached for an AppSKey');
    }
    throw fetchAppSKeyError(ErrJoinServerUnavailable.with({ join_eui }));
  }
}
