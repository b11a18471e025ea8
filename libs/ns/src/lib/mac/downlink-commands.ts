import type { MacCommandJson } from '@lorawan/lorawan';
import { macCommandLength } from '@lorawan/lorawan';
import { type Budget, cidCode, MAC_COMMANDS, type MacDownlink } from './commands';
import type { MacDraft } from './mac-draft';

export type { MacDownlink } from './commands';

export interface DownlinkCommands {
  /** In frame order: the queued answers, then the requests. */
  commands: MacCommandJson[];
  /** Not everything fit: FPending tells the device to open a window again. */
  f_pending: boolean;
}

/** The downlink table: the requests the network makes while current and desired parameters differ, in `MAC_COMMANDS`' order (TTS's). */
const ENQUEUERS = MAC_COMMANDS.flatMap((c) => (c.enqueue ? [c.enqueue] : []));

/**
 * The MAC commands of a class A downlink (TTS `downlink.go` generateDataDownlink): the answers the
 * last uplink queued first (what does not fit waits, FPending), then the requests for every
 * parameter whose desired value differs from the current one, while they and their answers fit.
 * The requests become `pending_requests` (regenerated on each downlink), and `queued_responses`
 * empty; the caller stores `draft.state` once the downlink is scheduled.
 */
export function downlinkCommands(draft: MacDraft, down: MacDownlink): DownlinkCommands {
  const budget: Budget = { down: down.max_down, up: down.max_up, full: false };
  const answers: MacCommandJson[] = [];
  for (const answer of draft.state.queued_responses ?? []) {
    const length = 1 + (macCommandLength(cidCode(answer.cid), 'downlink') ?? 0);
    if (length > budget.down) {
      budget.full = true;
      break;
    }
    budget.down -= length;
    answers.push(answer);
  }
  draft.state.queued_responses = [];
  draft.state.pending_requests = [];
  for (const enqueuer of ENQUEUERS) enqueuer(draft, budget, down);
  return { commands: [...answers, ...(draft.state.pending_requests ?? [])], f_pending: budget.full };
}
