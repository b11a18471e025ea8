import { MACCommandIdentifier } from '@lorawan/api';
import { MAC_COMMANDS } from './index';

describe('MAC_COMMANDS', () => {
  it('declares each command once, by a CID of the contract, with something to do in either direction', () => {
    const cids = MAC_COMMANDS.map((c) => c.cid);
    expect(new Set(cids).size).toBe(cids.length);
    for (const command of MAC_COMMANDS) {
      expect(MACCommandIdentifier.names).toContain(command.cid);
      expect(command.enqueue ?? command.uplink).toBeDefined();
      expect(Object.keys(command.events).length).toBeGreaterThan(0);
    }
  });

  it('asks for parameters in TTS’s order', () => {
    expect(MAC_COMMANDS.filter((c) => c.enqueue).map((c) => c.cid)).toEqual([
      'CID_DUTY_CYCLE',
      'CID_TX_PARAM_SETUP',
      'CID_RX_PARAM_SETUP',
      'CID_NEW_CHANNEL',
      'CID_LINK_ADR',
      'CID_RX_TIMING_SETUP',
      'CID_BEACON_FREQ',
      'CID_PING_SLOT_CHANNEL',
      'CID_DL_CHANNEL',
      'CID_ADR_PARAM_SETUP',
      'CID_REJOIN_PARAM_SETUP',
      'CID_DEV_STATUS',
    ]);
  });
});
