import { NS_MAC_EVENTS } from '@lorawan/api';
import { switchClass } from '../device-class';
import { emit, queueResponse } from '../mac-draft';
import type { MacCommandDefinition } from './mac-command';

const E = NS_MAC_EVENTS.deviceMode;

/** DeviceModeInd / DeviceModeConf (LoRaWAN 1.1, TTS `device_mode.go`): the device names its class. */
export const DEVICE_MODE: MacCommandDefinition = {
  cid: 'CID_DEVICE_MODE',
  events: E,
  uplink: {
    kind: 'device',
    handle: (draft, ind) => {
      emit(draft, E.indication, ind);
      const named = ind.class as string;
      // A class C device only when it supports class C; class A always (TTS `device_mode.go`). The confirmation names the class the device is now in.
      const to = named === 'CLASS_C' && draft.device.supports_class_c ? 'CLASS_C' : named === 'CLASS_A' ? 'CLASS_A' : (draft.state.device_class ?? 'CLASS_A');
      switchClass(draft, to);
      const conf = { class: to };
      queueResponse(draft, { cid: 'CID_DEVICE_MODE', device_mode_conf: conf });
      emit(draft, E.confirmation, conf);
    },
  },
};
