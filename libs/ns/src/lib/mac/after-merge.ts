import type { MacCommandJson } from '@lorawan/lorawan';
import { MAC_COMMANDS, type MergedUplinkView, type UplinkHandling } from './commands';
import type { MacDraft } from './mac-draft';

export type { MergedUplinkView } from './commands';

type AfterMerge = Extract<UplinkHandling, { kind: 'after-merge' }>['answer'];

/** The commands answered once every copy of the uplink is in, by CID (built from `MAC_COMMANDS`). */
const AFTER_MERGE_ANSWERS: ReadonlyMap<string, AfterMerge> = new Map(
  MAC_COMMANDS.flatMap((c) => (c.uplink?.kind === 'after-merge' ? [[c.cid, c.uplink.answer] as const] : [])),
);

/**
 * The device's requests whose answers need every copy of the uplink (TTS's deferred handlers):
 * LinkCheckReq and DeviceTimeReq (`commands/link-check.ts`, `commands/device-time.ts`), in order.
 */
export function answerAfterMerge(draft: MacDraft, commands: readonly MacCommandJson[], up: MergedUplinkView): void {
  for (const command of commands) AFTER_MERGE_ANSWERS.get(command.cid)?.(draft, up);
}
