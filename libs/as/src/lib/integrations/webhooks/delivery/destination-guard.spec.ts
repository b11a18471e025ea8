import { ForbiddenDestinationError, guardedLookup, isAllowedAddress } from './destination-guard';

describe('SSRF guard', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.254',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '::ffff:169.254.169.254',
    'not-an-address',
  ])('refuses %s', (address) => expect(isAllowedAddress(address)).toBe(false));

  it.each(['93.184.216.34', '8.8.8.8', '100.128.0.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) =>
    expect(isAllowedAddress(address)).toBe(true),
  );

  it('refuses a name that resolves to a private address', async () => {
    const err = await new Promise<unknown>((res) => guardedLookup('localhost', { all: true }, (e) => res(e)));
    expect(err).toBeInstanceOf(ForbiddenDestinationError);
  });
});
