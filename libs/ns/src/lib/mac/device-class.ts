import { NS_MAC_EVENTS } from '@lorawan/api';
import { emit, type MacDraft } from './mac-draft';

const E = NS_MAC_EVENTS.classSwitch;

/** Device class changes (`ns.class.switch.*`). */
export function switchClass(draft: MacDraft, to: string): void {
  const from = draft.state.device_class ?? 'CLASS_A';
  if (from === to) return;
  draft.state.device_class = to;
  const event = to === 'CLASS_B' ? E.b : to === 'CLASS_C' ? E.c : E.a;
  emit(draft, event, from);
}
