import { parseRouterInfoQuery, parseTrafficPath, routerInfoAnswer, routerInfoError, trafficUri } from './discovery';

const endpoint = { scheme: 'wss' as const, host: 'localhost', port: 8887 };

describe('router-info discovery (tcproto "Querying the LNS Router")', () => {
  it.each([
    ['{"router":"b827:ebff:fe61:51d9"}', 'b827:ebff:fe61:51d9'],
    ['{"router":"b827ebfffe6151d9"}', 'b827ebfffe6151d9'],
    ['{"router":"B8-27-EB-FF-FE-61-51-D9"}', 'B8-27-EB-FF-FE-61-51-D9'],
    ['{"router":13269834311787434457}', 13269834311787434457n],
  ])('%s → the data URI of B827EBFFFE6151D9', (text, router) => {
    const query = parseRouterInfoQuery(text);
    expect(query).toEqual({ router, eui: 'B827EBFFFE6151D9' });
    expect(routerInfoAnswer(query as { router: unknown; eui: string }, endpoint)).toEqual({
      router: 'b827:ebff:fe61:51d9',
      muxs: 'muxs-::0',
      uri: 'wss://localhost:8887/traffic/eui-B827EBFFFE6151D9',
    });
  });

  it('an id6 with :: and a small integer', () => {
    expect(parseRouterInfoQuery('{"router":"::1"}')).toEqual({ router: '::1', eui: '0000000000000001' });
    expect(parseRouterInfoQuery('{"router":1}')).toEqual({ router: 1, eui: '0000000000000001' });
  });

  it.each([
    ['not json', 'router-info query is not JSON'],
    ['[]', 'router-info query has no `router`'],
    ['{"eui":"b827ebfffe6151d9"}', 'router-info query has no `router`'],
    ['{"router":"zz"}', 'router-info query: `router` is not an EUI or id6'],
    ['{"router":{"a":1}}', 'router-info query: `router` is not an EUI or id6'],
    ['{"router":"::0"}', 'router-info query: `router` is the zero EUI'],
    ['{"constructor":1}', 'router-info query has no `router`'],
    [`{"router":"${'1'.repeat(2000)}"}`, 'router-info query larger than 1024 characters'],
  ])('refuses %s', (text, error) => expect(parseRouterInfoQuery(text)).toEqual({ error }));

  it('error answers echo a short router only', () => {
    expect(routerInfoError('b827:ebff:fe61:51d9', 'unknown gateway')).toEqual({ router: 'b827:ebff:fe61:51d9', error: 'unknown gateway' });
    expect(routerInfoError('x'.repeat(65), 'malformed')).toEqual({ error: 'malformed' });
    expect(routerInfoError({ a: 1 }, 'malformed')).toEqual({ error: 'malformed' });
  });

  it('the URI always carries a port and a path; IPv6 hosts bracketed', () => {
    expect(trafficUri({ scheme: 'ws', host: 'gs.example.com', port: 1887 }, '0000000000000001')).toBe('ws://gs.example.com:1887/traffic/eui-0000000000000001');
    expect(trafficUri({ scheme: 'ws', host: '::1', port: 1887 }, '0000000000000001')).toBe('ws://[::1]:1887/traffic/eui-0000000000000001');
  });

  it('reads the gateway EUI of a data connection path', () => {
    expect(parseTrafficPath('/traffic/eui-B827EBFFFE6151D9')).toBe('B827EBFFFE6151D9');
    expect(parseTrafficPath('/traffic/eui-b827ebfffe6151d9?x=1')).toBe('B827EBFFFE6151D9');
    expect(parseTrafficPath('/traffic/eui-b827:ebff:fe61:51d9')).toBe('B827EBFFFE6151D9');
    for (const path of ['/traffic/', '/traffic/B827EBFFFE6151D9', '/router-info', '/traffic/eui-zz', '/traffic/eui-0000000000000000', '/traffic/eui-%E0%A4%A'])
      expect(parseTrafficPath(path)).toBeUndefined();
  });
});
