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
  ])('%j is refused', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(CommandLineError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});
