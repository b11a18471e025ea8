import { CommandLineError, parseCommandLine } from './args';

describe('parseCommandLine', () => {
  it('parses each command with its arguments and the connection flags anywhere', () => {
    expect(parseCommandLine(['devices', 'register', '-', '--url', 'http://h:1'])).toEqual({
      command: { name: 'register', source: '-' },
      flags: { url: 'http://h:1', apiKey: undefined },
    });
    expect(parseCommandLine(['--api-key', 'K', 'devices', 'get', 'app1', 'dev1']).command).toEqual({
      name: 'get',
      ref: { applicationId: 'app1', deviceId: 'dev1' },
    });
    expect(parseCommandLine(['end-devices', 'delete', 'app1', 'dev1']).command.name).toBe('delete');
    expect(parseCommandLine(['devices', 'list', 'app1', '--limit', '10', '--page', '2']).command).toEqual({
      name: 'list',
      applicationId: 'app1',
      limit: 10,
      page: 2,
    });
    expect(parseCommandLine(['devices', 'list', 'app1']).command).toEqual({ name: 'list', applicationId: 'app1', limit: undefined, page: undefined });
    expect(parseCommandLine(['anything', '--help']).command).toEqual({ name: 'help' });
  });

  it('parses devices import and export with their options and defaults', () => {
    expect(parseCommandLine(['devices', 'import', 'd.csv', '--application', 'app1']).command).toEqual({
      name: 'import',
      source: 'd.csv',
      applicationId: 'app1',
      format: undefined,
      report: undefined,
      dryRun: false,
      batchSize: 250,
      concurrency: 4,
    });
    expect(
      parseCommandLine([
        'devices',
        'import',
        'd',
        '--application',
        'a',
        '--format',
        'csv',
        '--report',
        'r',
        '--dry-run',
        '--batch-size',
        '1000',
        '--concurrency',
        '8',
      ]).command,
    ).toMatchObject({ format: 'csv', report: 'r', dryRun: true, batchSize: 1000, concurrency: 8 });
    expect(parseCommandLine(['end-devices', 'export', '--application', 'app1']).command).toEqual({
      name: 'export',
      applicationId: 'app1',
      withKeys: false,
      output: undefined,
      pageSize: 100,
    });
    expect(parseCommandLine(['devices', 'export', '--application', 'a', '--with-keys', '--output', 'o', '--batch-size', '500']).command).toMatchObject({
      withKeys: true,
      output: 'o',
      pageSize: 500,
    });
  });

  it('parses the application and API key commands', () => {
    expect(parseCommandLine(['applications', 'create', 'app1', '--name', 'App 1']).command).toEqual({
      name: 'applications create',
      applicationId: 'app1',
      userId: undefined,
      appName: 'App 1',
    });
    expect(parseCommandLine(['applications', 'create', 'app1', '--user', 'usr1']).command).toMatchObject({ userId: 'usr1' });
    expect(parseCommandLine(['applications', 'list', '--limit', '5']).command).toEqual({ name: 'applications list', limit: 5, page: undefined });
    expect(parseCommandLine(['applications', 'delete', 'app1']).command).toEqual({ name: 'applications delete', applicationId: 'app1' });
    expect(parseCommandLine(['api-keys', 'create', 'app1', '--rights', 'RIGHT_APPLICATION_ALL, RIGHT_APPLICATION_INFO', '--name', 'k']).command).toEqual({
      name: 'api-keys create',
      applicationId: 'app1',
      rights: ['RIGHT_APPLICATION_ALL', 'RIGHT_APPLICATION_INFO'],
      keyName: 'k',
      expiresAt: undefined,
    });
  });

  const SIMULATE = [
    'simulate',
    'join',
    '--gateway-eui',
    '0102030405060708',
    '--join-eui',
    '70b3d57ed0000001',
    '--dev-eui',
    '0004A30B001C0530',
    '--app-key',
    '2B7E151628AED2A6ABF7158809CF4F3C',
  ];

  it('parses simulate join with its defaults', () => {
    expect(parseCommandLine(SIMULATE)).toEqual({
      command: {
        name: 'simulate join',
        options: {
          udp: { host: '127.0.0.1', port: 1700 },
          gatewayEui: '0102030405060708',
          joinEui: '70B3D57ED0000001',
          devEui: '0004A30B001C0530',
          appKey: '2B7E151628AED2A6ABF7158809CF4F3C',
          macVersion: 'MAC_V1_0_3',
          frequency: 868.1,
          dataRate: 'SF7BW125',
          timeoutMs: 8000,
        },
      },
      flags: { url: undefined, apiKey: undefined },
    });
  });

  it('parses every simulate join option', () => {
    const argv = [...SIMULATE, '--nwk-key', '000102030405060708090a0b0c0d0e0f', '--mac-version', 'MAC_V1_1', '--dev-nonce', '00ff'];
    const more = ['--udp', 'gs.example.com:1800', '--frequency', '867.5', '--data-rate', 'SF12BW125', '--timeout', '2.5'];
    expect(parseCommandLine([...argv, ...more]).command).toEqual({
      name: 'simulate join',
      options: {
        udp: { host: 'gs.example.com', port: 1800 },
        gatewayEui: '0102030405060708',
        joinEui: '70B3D57ED0000001',
        devEui: '0004A30B001C0530',
        appKey: '2B7E151628AED2A6ABF7158809CF4F3C',
        nwkKey: '000102030405060708090A0B0C0D0E0F',
        macVersion: 'MAC_V1_1',
        devNonce: 0xff,
        frequency: 867.5,
        dataRate: 'SF12BW125',
        timeoutMs: 2500,
      },
    });
  });

  it.each([
    [['simulate'], /simulate: which command\? join/],
    [['simulate', 'uplink'], /unknown command "simulate uplink"/],
    [[...SIMULATE, 'extra'], /takes no arguments/],
    [SIMULATE.slice(0, 2), /needs --gateway-eui \(16 hex digits\)/],
    [SIMULATE.filter((a) => a !== '--dev-eui' && a !== '0004A30B001C0530'), /needs --dev-eui/],
    [SIMULATE.filter((a) => !a.startsWith('2B7E') && a !== '--app-key'), /needs --app-key \(32 hex digits\)/],
    [[...SIMULATE, '--gateway-eui', '01020304'], /--gateway-eui must be 16 hex digits, got "01020304"/],
    [[...SIMULATE, '--app-key', 'zz'.repeat(16)], /--app-key must be 32 hex digits/],
    [[...SIMULATE, '--mac-version', 'MAC_V1_1'], /needs --nwk-key/],
    [[...SIMULATE, '--nwk-key', '00'.repeat(16)], /--nwk-key applies to MAC_V1_1 only/],
    [[...SIMULATE, '--mac-version', '1.0.3'], /--mac-version must be one of MAC_V1_0, .*MAC_V1_1, got "1.0.3"/],
    [[...SIMULATE, '--dev-nonce', '12345'], /--dev-nonce must be 4 hex digits/],
    [[...SIMULATE, '--udp', '1700'], /--udp must be host:port/],
    [[...SIMULATE, '--udp', 'localhost:70000'], /--udp must be host:port/],
    [[...SIMULATE, '--udp', ':1700'], /--udp must be host:port/],
    [[...SIMULATE, '--frequency', '868,1'], /--frequency must be a positive number/],
    [[...SIMULATE, '--timeout', '0'], /--timeout must be a positive number/],
    [[...SIMULATE, '--data-rate', 'SF13BW125'], /--data-rate must be a LoRa data rate/],
    [[...SIMULATE, '--limit', '1'], /--limit does not apply to simulate join/],
    [[...SIMULATE, '--url', 'http://h:1'], /--url and --api-key do not apply to simulate join/],
    [['devices', 'get', 'a', 'b', '--gateway-eui', '0102030405060708'], /--gateway-eui does not apply to devices get/],
    [['applications', 'list', '--timeout', '1'], /--timeout does not apply to applications list/],
  ])('simulate: %j is refused', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(CommandLineError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });

  it.each([
    [[], /no command/],
    [['foo'], /unknown command "foo"/],
    [['devices'], /which command/],
    [['devices', 'create', 'x'], /unknown command "devices create"/],
    [['devices', 'get', 'app1'], /takes <application-id> <device-id>/],
    [['devices', 'register'], /takes <file.json \| ->/],
    [['devices', 'list', 'app1', '--limit', 'ten'], /--limit must be a non-negative integer/],
    [['devices', 'list', 'app1', '--limit=-1'], /--limit must be a non-negative integer/],
    [['devices', 'get', 'a', 'b', '--limit', '1'], /devices list only/],
    [['devices', 'list', 'app1', '--bogus'], /Unknown option '--bogus'/],
    [['devices', 'get', 'a', 'b', '--rights', 'X'], /--rights does not apply to devices get/],
    [['applications'], /applications: which command/],
    [['applications', 'create'], /applications create takes <application-id>/],
    [['applications', 'list', '--user', 'u'], /--user does not apply to applications list/],
    [['api-keys', 'create', 'app1'], /needs --rights/],
    [['api-keys', 'list'], /unknown command "api-keys list"/],
    [['devices', 'import', 'd.jsonl'], /devices import needs --application/],
    [['devices', 'import', '--application', 'a'], /takes <file.jsonl \| file.csv>/],
    [['devices', 'import', 'd', '--application', 'a', '--format', 'xml'], /--format must be jsonl or csv/],
    [['devices', 'import', 'd', '--application', 'a', '--batch-size', '1001'], /--batch-size must be between 1 and 1000/],
    [['devices', 'import', 'd', '--application', 'a', '--concurrency', '0'], /--concurrency must be between 1 and 64/],
    [['devices', 'import', 'd', '--application', 'a', '--with-keys'], /--with-keys does not apply to devices import/],
    [['devices', 'export', '--application', 'a', '--dry-run'], /--dry-run does not apply to devices export/],
    [['devices', 'export', 'app1'], /devices export takes/],
    [['devices', 'get', 'a', 'b', '--application', 'a'], /--application does not apply to devices get/],
  ])('%j is refused', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(CommandLineError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});
