import { defineEnum } from './enum';

/** Enumerations of the seed (names and numbers as in `device-registry-api.md` and TTS's lorawan.proto). */
/** Input also takes TTS's registered aliases (`lorawan_json.pb.go` `MACVersion_customvalue`): `"1.0.3"`, `"unknown"`. */
export const MACVersion = defineEnum(
  'MACVersion',
  { MAC_UNKNOWN: 0, MAC_V1_0: 1, MAC_V1_0_1: 2, MAC_V1_0_2: 3, MAC_V1_1: 4, MAC_V1_0_3: 5, MAC_V1_0_4: 6 },
  'MAC_',
  {
    aliases: {
      unknown: 'MAC_UNKNOWN',
      '1.0': 'MAC_V1_0',
      '1.0.0': 'MAC_V1_0',
      '1.0.1': 'MAC_V1_0_1',
      '1.0.2': 'MAC_V1_0_2',
      '1.1': 'MAC_V1_1',
      '1.1.0': 'MAC_V1_1',
      '1.0.3': 'MAC_V1_0_3',
      '1.0.4': 'MAC_V1_0_4',
    },
  },
);
/** Input also takes TTS's registered aliases (`PHYVersion_customvalue`): `"1.0.2-b"`, `"1.1-a"`, `"unknown"`. */
export const PHYVersion = defineEnum(
  'PHYVersion',
  { PHY_UNKNOWN: 0, PHY_V1_0: 1, PHY_V1_0_1: 2, PHY_V1_0_2_REV_A: 3, PHY_V1_0_2_REV_B: 4, PHY_V1_1_REV_A: 5, PHY_V1_1_REV_B: 6, PHY_V1_0_3_REV_A: 7 },
  'PHY_',
  {
    aliases: {
      unknown: 'PHY_UNKNOWN',
      '1.0': 'PHY_V1_0',
      '1.0.0': 'PHY_V1_0',
      '1.0.1': 'PHY_V1_0_1',
      '1.0.2': 'PHY_V1_0_2_REV_A',
      '1.0.2-a': 'PHY_V1_0_2_REV_A',
      V1_0_2: 'PHY_V1_0_2_REV_A',
      '1.0.2-b': 'PHY_V1_0_2_REV_B',
      '1.1-a': 'PHY_V1_1_REV_A',
      '1.1.0-a': 'PHY_V1_1_REV_A',
      '1.1-b': 'PHY_V1_1_REV_B',
      '1.1.0-b': 'PHY_V1_1_REV_B',
      '1.0.3-a': 'PHY_V1_0_3_REV_A',
    },
  },
);
export const PowerState = defineEnum('PowerState', { POWER_UNKNOWN: 0, POWER_BATTERY: 1, POWER_EXTERNAL: 2 }, 'POWER_');
export const LocationSource = defineEnum(
  'LocationSource',
  {
    SOURCE_UNKNOWN: 0,
    SOURCE_GPS: 1,
    SOURCE_REGISTRY: 3,
    SOURCE_IP_GEOLOCATION: 4,
    SOURCE_WIFI_RSSI_GEOLOCATION: 5,
    SOURCE_BT_RSSI_GEOLOCATION: 6,
    SOURCE_LORA_RSSI_GEOLOCATION: 7,
    SOURCE_LORA_TDOA_GEOLOCATION: 8,
    SOURCE_COMBINED_GEOLOCATION: 9,
  },
  'SOURCE_',
);
