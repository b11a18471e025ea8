import { Base64Bytes, Str } from '../json/fields';

/**
 * A secret of an entity (TTS `Secret`, `secrets.proto`): its bytes and, as stored, the label of
 * the KEK that sealed them. Every field of this type is a secret wherever it is declared: the
 * paths reaching it are derived from the contract (`secretPathsOf`), reading them needs the
 * entity's read-secrets right and writing them its write-secrets right (`withSecretRights`), and
 * the IS seals them at rest.
 */
export class Secret {
  @Str({ maxLength: 2048 }) key_id?: string;
  /** Standard base64 (the contract's form of `bytes`); TTS allows 20 KiB. */
  @Base64Bytes(20480) value?: string;
}
