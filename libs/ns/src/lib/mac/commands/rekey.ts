import { NS_MAC_EVENTS } from '@lorawan/api';
import { emit, queueResponse } from '../mac-draft';
import type { MacCommandDefinition } from './mac-command';

const E = NS_MAC_EVENTS.rekey;

/**
 * RekeyInd / RekeyConf (LoRaWAN 1.1, TTS `rekey.go`): confirmed for OTAA devices. The session
 * switch itself happens where the uplink matched its session (`applyRekey`).
 */
export const REKEY: MacCommandDefinition = {
  cid: 'CID_REKEY',
  events: E,
  uplink: {
    kind: 'device',
    handle: (draft, ind) => {
      emit(draft, E.indication, ind);
      if (!draft.device.supports_join) return;
      const conf = { minor_version: 'MINOR_1' };
      draft.state.lorawan_version = 'MAC_V1_1';
      queueResponse(draft, { cid: 'CID_REKEY', rekey_conf: conf });
      emit(draft, E.confirmation, conf);
    },
  },
};
