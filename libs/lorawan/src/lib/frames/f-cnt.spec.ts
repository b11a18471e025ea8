import { fullFCnt } from './f-cnt';

describe('fullFCnt (dataplane-notes §7 FCnt cases)', () => {
  it.each([
    [0x0001, 0x0000ffff, true, 0x00010001],
    [0x0005, 0x00010003, true, 0x00010005],
    [0x0000, 0, true, 0],
    [0x1234, 0x00012000, true, 0x00021234],
    [0x1234, undefined, true, 0x1234],
    [0x0002, 0x0000fffe, false, 0x0002],
    [0x0003, 0xfffffff0, true, 0xffff0003],
  ])('FCnt %i after %i (32-bit %s) → %i', (fCnt16, last, supports32, expected) => {
    expect(fullFCnt(fCnt16, last, supports32)).toBe(expected);
  });
});
