import { deletePath, getPath, safePathParts, setPath } from './dotted-path';

describe('dotted paths', () => {
  it('reads a value at a path, undefined where the path leaves the objects', () => {
    const obj = { a: { b: { c: 1 }, list: [{ x: 1 }] } };
    expect(getPath(obj, 'a.b.c')).toBe(1);
    expect(getPath(obj, ['a', 'b'])).toEqual({ c: 1 });
    expect(getPath(obj, 'a.b.c.d')).toBeUndefined();
    expect(getPath(obj, 'a.list.0.x')).toBeUndefined();
    expect(getPath(null, 'a')).toBeUndefined();
  });

  it('writes a value, creating or replacing the objects on the way', () => {
    const obj: Record<string, unknown> = { a: 'scalar' };
    setPath(obj, 'a.b.c', 1);
    setPath(obj, ['x'], 2);
    expect(obj).toEqual({ a: { b: { c: 1 } }, x: 2 });
  });

  it('never writes through a prototype key or an empty part', () => {
    for (const path of ['__proto__.polluted', 'a.constructor.prototype.polluted', 'a..b', '']) {
      expect(safePathParts(path.split('.'))).toBe(false);
      expect(() => setPath({}, path, true)).toThrow(/unsafe field path/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('removes a field when its parent is there', () => {
    const obj = { a: { b: 1, c: 2 } };
    deletePath(obj, 'a.b');
    deletePath(obj, 'x.y');
    expect(obj).toEqual({ a: { c: 2 } });
  });
});
