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
  ])('%j is refused', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(CommandLineError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});
