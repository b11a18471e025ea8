import { CsvColumns, splitCsvRow } from './csv';

describe('splitCsvRow', () => {
  it('splits on commas, trims unquoted fields, keeps empty ones', () => {
    expect(splitCsvRow('a, b ,,c,')).toEqual(['a', 'b', '', 'c', '']);
  });

  it('reads quoted fields with commas and doubled quotes', () => {
    expect(splitCsvRow('"a, b","say ""hi""",""')).toEqual(['a, b', 'say "hi"', '']);
  });

  it('refuses an unterminated quote and text after a closing quote', () => {
    expect(() => splitCsvRow('"abc')).toThrow('unterminated quoted field');
    expect(() => splitCsvRow('"a"b,c')).toThrow('text after a closing quote');
  });
});

describe('CsvColumns', () => {
  it('refuses an unknown column, naming it', () => {
    expect(() => CsvColumns.fromHeader('device_id,dev_eui,appkey')).toThrow('unknown column "appkey"');
  });

  it('refuses a header without device_id, and a repeated column', () => {
    expect(() => CsvColumns.fromHeader('dev_eui,name')).toThrow('no device_id column');
    expect(() => CsvColumns.fromHeader('device_id,name,name')).toThrow('column "name" appears twice');
  });

  it('an OTAA row: ids, text fields, version IDs, attributes and root keys; hex in upper case', () => {
    const columns = CsvColumns.fromHeader(
      '\uFEFFdevice_id,dev_eui,join_eui,name,frequency_plan_id,lorawan_version,lorawan_phy_version,app_key,nwk_key,brand_id,model_id,band_id,attributes.room',
    );
    const device = columns.toDevice(
      'dev1,70b3d57ed005b59e,70B3D57ED0000000,"Dev, 1",EU_863_870_TTN,MAC_V1_1,PHY_V1_1_REV_B,00112233445566778899aabbccddeeff,FFEEDDCCBBAA99887766554433221100,acme,x1,EU_863_870,kitchen',
    );
    expect(device).toEqual({
      ids: { device_id: 'dev1', dev_eui: '70B3D57ED005B59E', join_eui: '70B3D57ED0000000' },
      name: 'Dev, 1',
      frequency_plan_id: 'EU_863_870_TTN',
      lorawan_version: 'MAC_V1_1',
      lorawan_phy_version: 'PHY_V1_1_REV_B',
      version_ids: { brand_id: 'acme', model_id: 'x1', band_id: 'EU_863_870' },
      attributes: { room: 'kitchen' },
      root_keys: { app_key: { key: '00112233445566778899AABBCCDDEEFF' }, nwk_key: { key: 'FFEEDDCCBBAA99887766554433221100' } },
      supports_join: true,
    });
  });

  it('an ABP row: the session with DevAddr and keys; nwk_s_key is the FNwkSIntKey', () => {
    const columns = CsvColumns.fromHeader('device_id,dev_eui,dev_addr,nwk_s_key,app_s_key,description');
    expect(columns.toDevice('abp1,0102030405060708,26011234,0102030405060708090a0b0c0d0e0f10,1112131415161718191A1B1C1D1E1F20,')).toEqual({
      ids: { device_id: 'abp1', dev_eui: '0102030405060708' },
      session: {
        dev_addr: '26011234',
        keys: { f_nwk_s_int_key: { key: '0102030405060708090A0B0C0D0E0F10' }, app_s_key: { key: '1112131415161718191A1B1C1D1E1F20' } },
      },
      supports_join: false,
    });
  });

  it('supports_join given wins; a bad value or a wrong field count is the line’s error', () => {
    const columns = CsvColumns.fromHeader('device_id,supports_join,app_key');
    expect(columns.toDevice('d1,false,00112233445566778899AABBCCDDEEFF').supports_join).toBe(false);
    expect(columns.toDevice('d1,,').supports_join).toBeUndefined();
    expect(() => columns.toDevice('d1,maybe,')).toThrow('supports_join must be true or false');
    expect(() => columns.toDevice('d1,true')).toThrow('2 fields where the header has 3 columns');
  });

  it('refuses nwk_s_key together with f_nwk_s_int_key', () => {
    const columns = CsvColumns.fromHeader('device_id,nwk_s_key,f_nwk_s_int_key');
    expect(() => columns.toDevice('d1,00112233445566778899AABBCCDDEEFF,00112233445566778899AABBCCDDEEFF')).toThrow('same key');
  });
});
