import { NS_MAC_EVENTS } from '@lorawan/api';
import { isStackError } from '@lorawan/errors';
import type { MacCommandFields, MacCommandJson, ParsedMacCommands } from '@lorawan/lorawan';
import { MAC_COMMANDS, type MacUplink, type UplinkHandling } from './commands';
import { ErrTruncatedMacCommand } from './errors';
import { emit, type MacDraft } from './mac-draft';

export type { MacUplink } from './commands';

const E = NS_MAC_EVENTS;

/** The uplink table: how each command a device sends is handled, by CID (built from `MAC_COMMANDS`). */
const UPLINK: ReadonlyMap<string, UplinkHandling> = new Map(MAC_COMMANDS.flatMap((c) => (c.uplink ? [[c.cid, c.uplink] as const] : [])));

/**
 * The MAC commands of an uplink, in order (TTS `grpc_gsns.go` macLoop): `queued_responses` start
 * empty (regenerated each uplink); answers take their request out of `pending_requests`;
 * device-initiated commands queue their answer or confirmation. Reading stops at a command the
 * specification does not define for uplinks (`ns.mac.command.unknown`) or one cut short
 * (`ns.mac.command.parse.fail`), and handling stops at one that cannot be applied — an answer
 * without request, a value out of range (`ns.mac.command.process.fail`): the rest of the frame is
 * ignored, as LoRaWAN requires. What the commands changed before stays. Requests the uplink left
 * unanswered are dropped (`ns.mac.command.unanswered`; the next downlink asks again). LinkCheckReq
 * and DeviceTimeReq are returned to be answered after the merge window.
 */
export function handleUplinkCommands(draft: MacDraft, parsed: ParsedMacCommands, up: MacUplink): MacCommandJson[] {
  draft.state.queued_responses = [];
  if (up.retransmission) draft.state.pending_requests = [];
  const afterMerge: MacCommandJson[] = [];
  const commands = parsed.commands;
  let i = 0;
  for (; i < commands.length; i++) {
    const command = commands[i];
    const field = Object.keys(command).find((k) => k !== 'cid') ?? '';
    const payload = (command[field] ?? {}) as MacCommandFields;
    const handling = UPLINK.get(command.cid);
    try {
      if (handling?.kind === 'after-merge') afterMerge.push(command);
      else if (handling?.kind === 'device') handling.handle(draft, payload, up);
      else if (up.retransmission) continue;
      else if (handling?.kind === 'answer-block') {
        const block = [payload];
        while (commands[i + 1]?.cid === command.cid) block.push((commands[++i][field] ?? {}) as MacCommandFields);
        handling.handle(draft, block, up);
      } else if (handling?.kind === 'answer') handling.handle(draft, payload, up);
      else {
        emit(draft, E.unknown, command);
        break;
      }
    } catch (err) {
      if (!isStackError(err)) throw err;
      emit(draft, E.processFail, err.toDetails());
      break;
    }
  }
  if (parsed.stopped && i >= commands.length) {
    const { cid, offset, reason } = parsed.stopped;
    const name = `0x${cid.toString(16).padStart(2, '0')}`;
    if (reason === 'unknown') emit(draft, E.unknown, { cid: name });
    else emit(draft, E.parseFail, ErrTruncatedMacCommand.with({ cid: name, offset }).toDetails());
  }
  const unanswered = draft.state.pending_requests ?? [];
  if (unanswered.length > 0) emit(draft, E.unanswered, { commands: unanswered });
  draft.state.pending_requests = [];
  return afterMerge;
}
