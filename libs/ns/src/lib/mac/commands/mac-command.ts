import { type EventDefinition, MACCommandIdentifier, type UplinkMessage } from '@lorawan/api';
import { type FrequencyPlan, type MacCommandFields, type MacCommandJson, macCommandLength } from '@lorawan/lorawan';
import type { NsMacSettings } from '../../model';
import { emit, type MacDraft } from '../mac-draft';

/** What the MAC layer needs of the uplink that carried the commands. */
export interface MacUplink {
  f_cnt: number;
  received_at: string;
  dev_addr: string;
  plan: FrequencyPlan;
  /** The MAC settings that apply (`effectiveMacSettings`). */
  settings: NsMacSettings;
  /** A retransmission: answers were applied the first time (TTS skips them). */
  retransmission: boolean;
}

/** What the MAC layer needs to fill a class A downlink. */
export interface MacDownlink {
  plan: FrequencyPlan;
  /** The MAC settings that apply (`effectiveMacSettings`). */
  settings: NsMacSettings;
  /** Unix ms the downlink goes out at (DevStatusReq's time periodicity). */
  now: number;
  /** The session's last FCntUp (DevStatusReq's count periodicity). */
  f_cnt_up: number;
  /** Bytes the downlink has for MAC commands. */
  max_down: number;
  /** Bytes the device's next uplink has for the answers. */
  max_up: number;
}

/** The uplink as every gateway's copy saw it (the answers built once every copy is in). */
export interface MergedUplinkView {
  rx_metadata: NonNullable<UplinkMessage['rx_metadata']>;
  received_at: string;
  /** The uplink's LoRa modulation (undefined for FSK). */
  lora?: { spreading_factor: number; bandwidth: number };
}

/** Space left in the downlink and the uplink that answers it. */
export interface Budget {
  down: number;
  up: number;
  full: boolean;
}

type Handle = (draft: MacDraft, payload: MacCommandFields, up: MacUplink) => void;

/** How the NS handles the command when a device sends it. */
export type UplinkHandling =
  /** A request or indication of the device: handled in retransmissions too. */
  | { kind: 'device'; handle: Handle }
  /** The answer to a request of the network (TTS Handle…Ans): takes its request out of `pending_requests`; skipped in retransmissions. */
  | { kind: 'answer'; handle: Handle }
  /** Answers the device sends as a block, one per request of the block the network sent (LinkADRAns). */
  | { kind: 'answer-block'; handle: (draft: MacDraft, answers: MacCommandFields[], up: MacUplink) => void }
  /** A request whose answer needs every gateway's copy of the uplink (TTS's deferred handlers): answered once they are all in. */
  | { kind: 'after-merge'; answer: (draft: MacDraft, up: MergedUplinkView) => void };

/**
 * One MAC command of the NS (TTS `pkg/networkserver/mac/<command>.go`): its CID, what the network
 * enqueues in a class A downlink while the device's parameters differ from what it wants, how the
 * NS handles what the device sends, and the command's events. The command tables of both
 * directions are built from the list of these (`MAC_COMMANDS`).
 */
export interface MacCommandDefinition {
  cid: string;
  /** The command's events (`ns.mac.<command>.*`). */
  events: Readonly<Record<string, EventDefinition>>;
  /** Downlink: the network's requests, if any are needed (TTS `Enqueue…Req`). */
  enqueue?: (draft: MacDraft, budget: Budget, down: MacDownlink) => void;
  /** Uplink: what the device sends. */
  uplink?: UplinkHandling;
}

/** A CID's number (`CID_LINK_ADR` → 3). */
export const cidCode = (cid: string): number => (MACCommandIdentifier.values as Record<string, number>)[cid] ?? -1;

const VERSIONS = ['MAC_V1_0', 'MAC_V1_0_1', 'MAC_V1_0_2', 'MAC_V1_0_3', 'MAC_V1_0_4', 'MAC_V1_1'];
/** The MAC state's LoRaWAN version is `min` or later (unset: 1.0.3). */
export const atLeast = (version: string | undefined, min: string) => VERSIONS.indexOf(version ?? 'MAC_V1_0_3') >= VERSIONS.indexOf(min);

/** A payload field as a number (absent: 0). */
export function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v ?? 0);
}

/** Adds requests of one CID if they and their answers fit (TTS `enqueueMACCommand`); false when they did not. */
export function enqueue(draft: MacDraft, budget: Budget, requests: MacCommandJson[], event?: { event: EventDefinition; field: string }): boolean {
  if (requests.length === 0) return true;
  const code = cidCode(requests[0].cid);
  const down = (1 + (macCommandLength(code, 'downlink') ?? 0)) * requests.length;
  // Every request is answered, except those the device answers once for a block (LinkADRReq before 1.0.2 answers once; counting each is the safe side).
  const up = (1 + (macCommandLength(code, 'uplink') ?? 0)) * requests.length;
  if (down > budget.down || up > budget.up) {
    budget.full = true;
    return false;
  }
  budget.down -= down;
  budget.up -= up;
  draft.state.pending_requests = [...(draft.state.pending_requests ?? []), ...requests];
  if (event) for (const r of requests) emit(draft, event.event, r[event.field] ?? {});
  return true;
}

/** As many of the requests as fit, in order. */
export function enqueueFitting(draft: MacDraft, budget: Budget, requests: MacCommandJson[], event: EventDefinition, field: string): void {
  for (const r of requests) if (!enqueue(draft, budget, [r], { event, field })) return;
}
