/**
 * What a LoRa Basics Station must receive in `router_config` for two frequency plans, transcribed
 * by hand from public references, never from the code under test:
 * - `DRs`, `region` names: Basics Station's own test LNS (`pysys/tcutils.py` base_regions EU863 / US902).
 * - `sx1301_conf`: TTN's reference concentrator configurations (`TheThingsNetwork/gateway-conf`
 *   `EU-global_conf.json`, `US-global_conf.json` = US915 FSB 2), which TTS's plans reproduce,
 *   reduced to the fields TTS's `pfconfig/lbslns` sends (radios: enable and freq; channels: enable,
 *   radio, if, and for the single-rate channels bandwidth and SF or bit rate).
 * The unit spec of the router_config and the e2e suite check against the same transcription.
 */

export const UNDEFINED_DR = [-1, 0, 0];

export const EU868_DRS = [
  [12, 125, 0],
  [11, 125, 0],
  [10, 125, 0],
  [9, 125, 0],
  [8, 125, 0],
  [7, 125, 0],
  [7, 250, 0],
  [0, 0, 0],
  ...Array(8).fill(UNDEFINED_DR),
];

export const US915_DRS = [
  [10, 125, 0],
  [9, 125, 0],
  [8, 125, 0],
  [7, 125, 0],
  [8, 500, 0],
  UNDEFINED_DR,
  UNDEFINED_DR,
  UNDEFINED_DR,
  [12, 500, 1],
  [11, 500, 1],
  [10, 500, 1],
  [9, 500, 1],
  [8, 500, 1],
  [7, 500, 1],
  UNDEFINED_DR,
  UNDEFINED_DR,
];

export const EU868_SX1301 = {
  radio_0: { enable: true, freq: 867500000 },
  radio_1: { enable: true, freq: 868500000 },
  chan_multiSF_0: { enable: true, radio: 1, if: -400000 },
  chan_multiSF_1: { enable: true, radio: 1, if: -200000 },
  chan_multiSF_2: { enable: true, radio: 1, if: 0 },
  chan_multiSF_3: { enable: true, radio: 0, if: -400000 },
  chan_multiSF_4: { enable: true, radio: 0, if: -200000 },
  chan_multiSF_5: { enable: true, radio: 0, if: 0 },
  chan_multiSF_6: { enable: true, radio: 0, if: 200000 },
  chan_multiSF_7: { enable: true, radio: 0, if: 400000 },
  chan_Lora_std: { enable: true, radio: 1, if: -200000, bandwidth: 250000, spread_factor: 7 },
  // Without the packet forwarder's `bandwidth`: the specification's SX1301CONF has none for FSK (TTS version.go strips it).
  chan_FSK: { enable: true, radio: 1, if: 300000, datarate: 50000 },
};

export const US915_FSB2_SX1301 = {
  radio_0: { enable: true, freq: 904300000 },
  radio_1: { enable: true, freq: 905000000 },
  chan_multiSF_0: { enable: true, radio: 0, if: -400000 },
  chan_multiSF_1: { enable: true, radio: 0, if: -200000 },
  chan_multiSF_2: { enable: true, radio: 0, if: 0 },
  chan_multiSF_3: { enable: true, radio: 0, if: 200000 },
  chan_multiSF_4: { enable: true, radio: 1, if: -300000 },
  chan_multiSF_5: { enable: true, radio: 1, if: -100000 },
  chan_multiSF_6: { enable: true, radio: 1, if: 100000 },
  chan_multiSF_7: { enable: true, radio: 1, if: 300000 },
  chan_Lora_std: { enable: true, radio: 0, if: 300000, bandwidth: 500000, spread_factor: 8 },
  chan_FSK: { enable: false },
};

/** The plan-dependent fields of each reference `router_config`, by frequency plan ID. */
export const REFERENCE_ROUTER_CONFIGS = {
  EU_863_870: { region: 'EU868', hwspec: 'sx1301/1', freq_range: [863000000, 870000000], DRs: EU868_DRS, sx1301_conf: [EU868_SX1301] },
  US_902_928_FSB_2: { region: 'US915', hwspec: 'sx1301/1', freq_range: [923000000, 928000000], DRs: US915_DRS, sx1301_conf: [US915_FSB2_SX1301] },
};
