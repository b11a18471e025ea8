import { decodeLpp, decodeLppDownlink, encodeLpp, encodeLppDownlink } from './cayenne-lpp';

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s/g, ''), 'hex'));

describe('CayenneLPP', () => {
  it('decodes the Cayenne LPP examples', () => {
    expect(decodeLpp(hex('03 67 01 10 05 67 00 FF'))).toEqual({ temperature_3: 27.2, temperature_5: 25.5 });
    expect(decodeLpp(hex('06 71 04 D2 FB 2E 00 00'))).toEqual({ accelerometer_6: { x: 1.234, y: -1.234, z: 0 } });
    expect(decodeLpp(hex('01 88 06 76 5F F2 96 0A 00 03 E8'))).toEqual({ gps_1: { latitude: 42.3519, longitude: -87.9094, altitude: 10 } });
  });

  it('decodes every type', () => {
    const bytes = hex('01 00 01  02 01 00  03 02 00 96  04 03 FF 6A  05 65 01 2C  06 66 01  07 68 61  08 73 27 7F  09 86 00 64 FF 9C 00 00');
    expect(decodeLpp(bytes)).toEqual({
      digital_in_1: 1,
      digital_out_2: 0,
      analog_in_3: 1.5,
      analog_out_4: -1.5,
      luminosity_5: 300,
      presence_6: 1,
      relative_humidity_7: 48.5,
      barometric_pressure_8: 1011.1,
      gyrometer_9: { x: 1, y: -1, z: 0 },
    });
  });

  it('round-trips every type', () => {
    const data = {
      digital_in_1: 1,
      digital_out_2: 0,
      analog_in_3: 1.5,
      analog_out_4: -327.68,
      luminosity_5: 65535,
      presence_6: 1,
      temperature_7: -12.3,
      relative_humidity_8: 99.5,
      accelerometer_9: { x: -32.768, y: 0.001, z: 1 },
      barometric_pressure_10: 1013.2,
      gyrometer_11: { x: 12.34, y: -0.01, z: 0 },
      gps_12: { latitude: -33.8688, longitude: 151.2093, altitude: -12.5 },
    };
    expect(decodeLpp(encodeLpp(data))).toEqual(data);
    expect(decodeLppDownlink(encodeLppDownlink({ value_1: 12.34, value_200: -1 }))).toEqual({ value_1: 12.34, value_200: -1 });
  });

  it('rejects unknown types, truncated values, bad keys and out-of-range values', () => {
    expect(() => decodeLpp(hex('01 99 00'))).toThrow('unknown type');
    expect(() => decodeLpp(hex('01 67 01'))).toThrow('truncated');
    expect(() => decodeLpp(hex('01'))).toThrow('truncated');
    expect(() => encodeLpp({ nope_1: 1 })).toThrow('unknown type');
    expect(() => encodeLpp({ temperature: 1 })).toThrow('<type>_<channel>');
    expect(() => encodeLpp({ temperature_1: 5000 })).toThrow('out of range');
    expect(() => encodeLpp({ temperature_256: 1 })).toThrow('out of range');
    expect(() => encodeLppDownlink({ value_1: 'x' })).toThrow('number');
    expect(() => encodeLppDownlink({ led_1: 1 })).toThrow('value_<channel>');
    expect(() => decodeLppDownlink(hex('01 02'))).toThrow('multiple of 3');
  });
});
