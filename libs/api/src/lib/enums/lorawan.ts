import { defineEnum } from './enum';

/** Enumerations of the seed (names and numbers as in `device-registry-api.md` and TTS's lorawan.proto). */
export const MACVersion = defineEnum(
  'MACVersion',
  { MAC_UNKNOWN: 0, MAC_V1_0: 1, MAC_V1_0_1: 2, MAC_V1_0_2: 3, MAC_V1_1: 4, MAC_V1_0_3: 5, MAC_V1_0_4: 6 },
  'MAC_',
);
export const PHYVersion = defineEnum(
  'PHYVersion',
  { PHY_UNKNOWN: 0, PHY_V1_0: 1, PHY_V1_0_1: 2, PHY_V1_0_2_REV_A: 3, PHY_V1_0_2_REV_B: 4, PHY_V1_1_REV_A: 5, PHY_V1_1_REV_B: 6, PHY_V1_0_3_REV_A: 7 },
  'PHY_',
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
