import { ADR_PARAM_SETUP } from './adr-param-setup';
import { BEACON_FREQ } from './beacon-freq';
import { DEV_STATUS } from './dev-status';
import { DEVICE_MODE } from './device-mode';
import { DEVICE_TIME } from './device-time';
import { DL_CHANNEL } from './dl-channel';
import { DUTY_CYCLE } from './duty-cycle';
import { LINK_ADR } from './link-adr';
import { LINK_CHECK } from './link-check';
import type { MacCommandDefinition } from './mac-command';
import { NEW_CHANNEL } from './new-channel';
import { PING_SLOT_CHANNEL } from './ping-slot-channel';
import { PING_SLOT_INFO } from './ping-slot-info';
import { REJOIN_PARAM_SETUP } from './rejoin-param-setup';
import { REKEY } from './rekey';
import { RESET } from './reset';
import { RX_PARAM_SETUP } from './rx-param-setup';
import { RX_TIMING_SETUP } from './rx-timing-setup';
import { TX_PARAM_SETUP } from './tx-param-setup';

export * from './mac-command';

/**
 * The MAC commands the NS handles, one module each. The order is the order in which a class A
 * downlink asks for parameters (TTS `downlink.go` enqueuers): DutyCycleReq, TxParamSetupReq,
 * RxParamSetupReq, NewChannelReq, LinkADRReq (after NewChannelReq: the mask counts the channels
 * those add), RxTimingSetupReq, BeaconFreqReq, PingSlotChannelReq, DlChannelReq,
 * ADRParamSetupReq, RejoinParamSetupReq, DevStatusReq; then the commands only devices start.
 * A new command is a new module here.
 */
export const MAC_COMMANDS: readonly MacCommandDefinition[] = [
  DUTY_CYCLE,
  TX_PARAM_SETUP,
  RX_PARAM_SETUP,
  NEW_CHANNEL,
  LINK_ADR,
  RX_TIMING_SETUP,
  BEACON_FREQ,
  PING_SLOT_CHANNEL,
  DL_CHANNEL,
  ADR_PARAM_SETUP,
  REJOIN_PARAM_SETUP,
  DEV_STATUS,
  LINK_CHECK,
  DEVICE_TIME,
  RESET,
  REKEY,
  DEVICE_MODE,
  PING_SLOT_INFO,
];
