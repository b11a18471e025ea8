import { SharedTextEncoder } from './document-encoder';

const DOCUMENTS: Array<Record<string, unknown>> = [
  {},
  { a: 1, b: 'x', c: true, d: null, e: undefined, f: () => 1, g: Symbol('s'), h: Number.NaN, i: -0, j: 1e21 },
  { 2: 'two', 1: 'one', b: { y: [1, undefined, () => 1, null, { z: '"\u2028\\' }], x: {} }, a: [] },
  { at: new Date(0), nested: { at: new Date(1), deeper: { buffer: Buffer.from('hi'), list: [[[{ a: [{ b: 1 }] }]]] } } },
  { mac_state: { current_parameters: { channels: [{ uplink_frequency: '868100000', enable_uplink: true }] }, recent_uplinks: [{ f_cnt: 1 }, { f_cnt: 2 }] } },
];

describe('SharedTextEncoder', () => {
  it.each(DOCUMENTS.map((d) => [JSON.stringify(d), d]))('writes what JSON.stringify writes: %s', (_text, document) => {
    const encoder = new SharedTextEncoder(true);
    expect(encoder.encode(document)).toBe(JSON.stringify(document));
    expect(encoder.encode(document)).toBe(JSON.stringify(document));
  });

  it('reuses the text of objects written before, in a new document around them', () => {
    const encoder = new SharedTextEncoder();
    const parameters = { channels: [{ uplink_frequency: '868100000' }], rx1_delay: 1 };
    const first = { mac_state: { current_parameters: parameters, recent_uplinks: [{ f_cnt: 1 }] } };
    expect(encoder.encode(first)).toBe(JSON.stringify(first));
    const stringify = jest.spyOn(JSON, 'stringify');
    const next = { mac_state: { ...first.mac_state, recent_uplinks: [...first.mac_state.recent_uplinks, { f_cnt: 2 }] } };
    const text = encoder.encode(next);
    const encodedWhole = stringify.mock.calls.map(([value]) => value);
    stringify.mockRestore();
    expect(text).toBe(JSON.stringify(next));
    expect(encodedWhole).not.toContain(parameters);
    expect(encodedWhole).not.toContain(first.mac_state.recent_uplinks[0]);
  });

  it('with checks, refuses a document changed in place since it was written', () => {
    const encoder = new SharedTextEncoder(true);
    const parameters = { rx1_delay: 1 };
    encoder.encode({ mac_state: { current_parameters: parameters } });
    parameters.rx1_delay = 5;
    expect(() => encoder.encode({ mac_state: { current_parameters: parameters } })).toThrow(/changed in place/);
  });
});
