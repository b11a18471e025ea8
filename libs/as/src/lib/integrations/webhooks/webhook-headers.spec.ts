import { deliverableHeaders, headerProblem } from './webhook-headers';

describe('webhook headers (RFC 9110)', () => {
  it('takes tokens as names and field values (visible ASCII, obs-text, SP, HTAB, empty)', () => {
    for (const [name, value] of [
      ['Authorization', 'Bearer abc'],
      ["X-!#$%&'*+-.^_`|~09az", 'v'],
      ['X-Latin-1', 'caf\u00e9'],
      ['X-Spaces', ' a \t b '],
      ['X-Empty', ''],
    ]) {
      expect(headerProblem(name, value)).toBeUndefined();
    }
  });

  it.each([
    ['', 'x', 'HTTP token'],
    ['X A', 'x', 'HTTP token'],
    ['X(A)', 'x', 'HTTP token'],
    ['X-\u00e9', 'x', 'HTTP token'],
    ['X', 'a\rb', 'field value'],
    ['X', 'a\nb', 'field value'],
    ['X', 'a\u0000b', 'field value'],
    ['X', 'a\u0001b', 'field value'],
    ['X', 'a\u007fb', 'field value'],
    ['X', 'a\u0100b', 'field value'],
    ['Connection', 'close', 'set by the HTTP client'],
    ['KEEP-ALIVE', 'x', 'set by the HTTP client'],
    ['proxy-connection', 'x', 'set by the HTTP client'],
    ['Transfer-Encoding', 'chunked', 'set by the HTTP client'],
    ['te', 'trailers', 'set by the HTTP client'],
    ['Trailer', 'x', 'set by the HTTP client'],
    ['Upgrade', 'websocket', 'set by the HTTP client'],
    ['Host', 'evil.example', 'set by the HTTP client'],
    ['Content-Length', '1', 'set by the HTTP client'],
  ])('refuses %j: %j (%s), naming the header', (name, value, reason) => {
    const problem = headerProblem(name, value);
    expect(problem).toContain(reason);
    expect(problem).toContain(`\`${name}\``);
  });

  it('refuses a value that is no string', () => {
    expect(headerProblem('X', 5)).toContain('field value');
  });

  it('keeps the sendable headers in their order', () => {
    expect(deliverableHeaders({ A: '1', Host: 'h', B: '2\r\n', C: '3' })).toEqual([
      ['A', '1'],
      ['C', '3'],
    ]);
    expect(deliverableHeaders(undefined)).toEqual([]);
  });
});
