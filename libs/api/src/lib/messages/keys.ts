import { AesKey, Base64Bytes, Str } from '../json/fields';
import { KeyMaterial, KeyReference } from '../json/key-material';
import { Message } from '../json/nested';

/** `ttn.lorawan.v3.KeyEnvelope`: a key, in the clear (`key`) or wrapped with a KEK (`encrypted_key`). */
export class KeyEnvelope {
  @KeyMaterial() @AesKey() key?: string;
  @KeyReference() @Str({ maxLength: 2048 }) kek_label?: string;
  @KeyMaterial() @Base64Bytes() encrypted_key?: string;
}

/** `ttn.lorawan.v3.RootKeys` (Join Server). */
export class RootKeys {
  @KeyReference() @Str({ maxLength: 2048 }) root_key_id?: string;
  @Message(() => KeyEnvelope) app_key?: KeyEnvelope;
  @Message(() => KeyEnvelope) nwk_key?: KeyEnvelope;
}

/** `ttn.lorawan.v3.SessionKeys`: each key is held only by the component that has the KEK for it. */
export class SessionKeys {
  @KeyReference() @Base64Bytes(2048) session_key_id?: string;
  @Message(() => KeyEnvelope) f_nwk_s_int_key?: KeyEnvelope;
  @Message(() => KeyEnvelope) s_nwk_s_int_key?: KeyEnvelope;
  @Message(() => KeyEnvelope) nwk_s_enc_key?: KeyEnvelope;
  @Message(() => KeyEnvelope) app_s_key?: KeyEnvelope;
}
