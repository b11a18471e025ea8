import ttsPaths from './tts-fieldmask-paths.json';

/**
 * Allowed field-mask paths per RPC: the subset of TTS's lists (`tts-fieldmask-paths.json`, copied
 * from the spec) that covers the fields the seed defines for that registry. A path outside its
 * RPC's set is rejected with `field_mask_paths`.
 */
export type TtsRpc = keyof typeof ttsPaths;

export function subset(rpc: TtsRpc, keep: (path: string) => boolean): ReadonlySet<string> {
  return new Set((ttsPaths[rpc] as string[]).filter(keep));
}

export { ttsPaths as TTS_FIELD_MASK_PATHS };
