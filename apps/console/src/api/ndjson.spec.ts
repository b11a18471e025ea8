import { NdjsonSplitter } from './ndjson';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('NdjsonSplitter', () => {
  it('parses messages split anywhere across chunks, multi-byte characters included', () => {
    const text = '{"result":{"name":"a"}}\n{"result":{"name":"é€"}}\n';
    const all = bytes(text);
    for (let cut = 1; cut < all.length; cut++) {
      const s = new NdjsonSplitter();
      expect([...s.push(all.slice(0, cut)), ...s.push(all.slice(cut)), ...s.end()]).toEqual([{ result: { name: 'a' } }, { result: { name: 'é€' } }]);
    }
  });

  it('skips keep-alive whitespace and blank lines (the \\n\\n framing)', () => {
    const s = new NdjsonSplitter();
    expect(s.push(bytes(' \n{"result":{}}\n\n   '))).toEqual([{ result: {} }]);
    expect(s.end()).toEqual([]);
  });

  it('returns a last message without its newline at the end', () => {
    const s = new NdjsonSplitter();
    expect(s.push(bytes('{"error":{"code":14}}'))).toEqual([]);
    expect(s.end()).toEqual([{ error: { code: 14 } }]);
  });
});
