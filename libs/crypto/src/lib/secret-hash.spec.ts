import { pbkdf2, timingSafeEqual } from 'node:crypto';
import { hashSecret, SecretHashFormatError, verifySecret } from './secret-hash';

// Observed, not replaced: the real functions run.
jest.mock('node:crypto', () => {
  const actual = jest.requireActual<typeof import('node:crypto')>('node:crypto');
  return { ...actual, pbkdf2: jest.fn(actual.pbkdf2), timingSafeEqual: jest.fn(actual.timingSafeEqual) };
});

beforeEach(() => jest.clearAllMocks());

describe('secret hashing (PBKDF2, TTS format)', () => {
  it('hashes as PBKDF2$sha256$<iterations>$<16-character salt>$<unpadded base64url 32-byte key>', async () => {
    const hash = await hashSecret('s3cret');
    expect(hash).toMatch(/^PBKDF2\$sha256\$10000\$[A-Za-z0-9_-]{16}\$[A-Za-z0-9_-]{43}$/);
    expect(hash).not.toContain('s3cret');
  });

  it('salts every hash', async () => {
    expect(await hashSecret('same', 10)).not.toBe(await hashSecret('same', 10));
  });

  it('verifies the right secret and refuses a wrong one', async () => {
    const hash = await hashSecret('right', 100);
    await expect(verifySecret('right', hash)).resolves.toBe(true);
    await expect(verifySecret('wrong', hash)).resolves.toBe(false);
    await expect(verifySecret('', hash)).resolves.toBe(false);
  });

  it('reads the iterations, digest and key length from the stored value (hashes made by TTS or with other settings verify)', async () => {
    // Computed independently (Python hashlib.pbkdf2_hmac) for secret `NNSXS-secret`, salt `0123456789abcdef`, 1000 iterations.
    await expect(verifySecret('NNSXS-secret', 'PBKDF2$sha256$1000$0123456789abcdef$1WXXVGv2FJRVVCH5Fv5r7HVFM9YZhlDCgTU94clRpOo')).resolves.toBe(true);
    await expect(verifySecret('NNSXS-secret', 'PBKDF2$sha512$1000$0123456789abcdef$yALdREJKJmmtnUukKarN1uLxpr33ICU1XyM941QPC-k')).resolves.toBe(true);
    await expect(verifySecret('NNSXS-secret', 'PBKDF2$sha256$1001$0123456789abcdef$1WXXVGv2FJRVVCH5Fv5r7HVFM9YZhlDCgTU94clRpOo')).resolves.toBe(false);
    await expect(verifySecret('NNSXS-secret', await hashSecret('NNSXS-secret', 3))).resolves.toBe(true);
  });

  it('a tampered hash, salt or iteration count no longer verifies', async () => {
    const hash = await hashSecret('secret', 50);
    const [scheme, digest, iterations, salt, key] = hash.split('$');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    await expect(verifySecret('secret', [scheme, digest, iterations, salt, flip(key, 0)].join('$'))).resolves.toBe(false);
    await expect(verifySecret('secret', [scheme, digest, iterations, flip(salt, 3), key].join('$'))).resolves.toBe(false);
    await expect(verifySecret('secret', [scheme, digest, '51', salt, key].join('$'))).resolves.toBe(false);
  });

  it.each([
    ['not a hash', 'plain'],
    ['wrong scheme', 'BCRYPT$sha256$10$salt$AAAA'],
    ['unknown digest', 'PBKDF2$md5$10$salt$AAAA'],
    ['zero iterations', 'PBKDF2$sha256$0$salt$AAAA'],
    ['absurd iterations', 'PBKDF2$sha256$99999999999$salt$AAAA'],
    ['empty salt', 'PBKDF2$sha256$10$$AAAA'],
    ['non-canonical key', 'PBKDF2$sha256$10$salt$AAB'],
    ['key with padding', 'PBKDF2$sha256$10$salt$AAAA=='],
    ['empty key', 'PBKDF2$sha256$10$salt$'],
  ])('refuses a malformed stored value (%s) without computing anything', async (_, stored) => {
    await expect(verifySecret('secret', stored)).rejects.toBeInstanceOf(SecretHashFormatError);
    expect(pbkdf2).not.toHaveBeenCalled();
  });

  it('compares in constant time (timingSafeEqual on equal-length buffers), also for a wrong secret', async () => {
    const hash = await hashSecret('secret', 20);
    jest.clearAllMocks();
    await expect(verifySecret('other', hash)).resolves.toBe(false);
    expect(timingSafeEqual).toHaveBeenCalledTimes(1);
    const [a, b] = jest.mocked(timingSafeEqual).mock.calls[0] as [Buffer, Buffer];
    expect(a.length).toBe(32);
    expect(b.length).toBe(32);
  });

  it('runs off the event loop: timers fire while a slow verification is under way', async () => {
    const hash = await hashSecret('secret', 300_000);
    let ticked = false;
    const timer = new Promise<void>((resolve) => setTimeout(() => resolve(void (ticked = true)), 1));
    const verification = verifySecret('secret', hash).then((ok) => ({ ok, tickedBefore: ticked }));
    await timer;
    expect(await verification).toEqual({ ok: true, tickedBefore: true });
  });

  it('refuses iteration counts outside 1..10 000 000 when hashing', async () => {
    await expect(hashSecret('x', 0)).rejects.toBeInstanceOf(RangeError);
    await expect(hashSecret('x', 1.5)).rejects.toBeInstanceOf(RangeError);
  });
});
