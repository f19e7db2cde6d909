import { describe, expect, it } from 'vitest';
import { isValidSecret, newSecret, secretKey, signatureHeaders, verifySignature } from './sign.js';

const bytes = (n: number) => Buffer.alloc(n, 7).toString('base64');

describe('Standard Webhooks secrets and signatures', () => {
  it('a secret is whsec_ (or nothing) and the base64 of 24 to 64 bytes', () => {
    expect([23, 24, 64, 65].map((n) => isValidSecret(`whsec_${bytes(n)}`))).toEqual([false, true, true, false]);
    expect(isValidSecret(bytes(32))).toBe(true);
    expect(isValidSecret('whsec_')).toBe(false);
    expect(isValidSecret(`whsec_${bytes(32)}!`)).toBe(false);
    expect(isValidSecret(`whsec_${bytes(32).replace(/=*$/, '===')}`)).toBe(false);
    expect(secretKey(`whsec_${bytes(32)}`)).toEqual(Buffer.alloc(32, 7));
    expect(secretKey(bytes(30))).toEqual(Buffer.alloc(30, 7));
    const fresh = newSecret();
    expect(fresh).toMatch(/^whsec_/);
    expect(secretKey(fresh)).toHaveLength(32);
    expect(newSecret()).not.toBe(fresh);
  });

  it('the headers: the id, the unix seconds of the try, one v1 signature per secret', () => {
    const [a, b] = [`whsec_${bytes(32)}`, `whsec_${Buffer.alloc(32, 9).toString('base64')}`];
    const h = signatureHeaders([a, b], 'msg_1', '{"x":1}', 1_700_000_000_999);
    expect(h['webhook-id']).toBe('msg_1');
    expect(h['webhook-timestamp']).toBe('1700000000');
    const sigs = h['webhook-signature'].split(' ');
    expect(sigs).toHaveLength(2);
    expect(sigs.every((s) => /^v1,[A-Za-z0-9+/]{43}=$/.test(s))).toBe(true);
    expect(sigs[0]).not.toBe(sigs[1]);
  });

  it('verification: the timestamp within 300 s either way, any v1 signature among others, made with one of the secrets', () => {
    const secret = `whsec_${bytes(32)}`;
    const now = 1_700_000_000_000;
    const h = signatureHeaders([secret], 'msg_2', 'body', now);
    const given = { id: 'msg_2', timestamp: h['webhook-timestamp'], signature: h['webhook-signature'] };
    expect(verifySignature([secret], given, 'body', now + 300_000)).toEqual({ ok: true, secretIndex: 0 });
    expect(verifySignature([secret], given, 'body', now - 300_000)).toEqual({ ok: true, secretIndex: 0 });
    expect(verifySignature([secret], given, 'body', now + 301_000)).toEqual({ ok: false, reason: 'webhook-timestamp 1700000000 is more than 300 s away' });
    expect(verifySignature([secret], given, 'body', now - 301_000)).toMatchObject({ ok: false });
    expect(verifySignature([secret], { ...given, timestamp: '17e8' }, 'body', now)).toEqual({ ok: false, reason: 'webhook-timestamp "17e8" is not unix seconds' });
    expect(verifySignature([secret], { ...given, signature: `v2,abc ${given.signature}` }, 'body', now)).toEqual({ ok: true, secretIndex: 0 });
    expect(verifySignature([secret], { ...given, signature: 'v1,AAAA' }, 'body', now)).toEqual({ ok: false, reason: 'no signature matches the secret' });
    expect(verifySignature([secret], { ...given, id: 'msg_3' }, 'body', now)).toMatchObject({ ok: false });
    expect(verifySignature([secret], { ...given, signature: `v1,AAAA ${given.signature}` }, 'body', now)).toEqual({ ok: true, secretIndex: 0 });
    expect(verifySignature([secret], { ...given, signature: 'v2,abc v1a,xyz' }, 'body', now)).toEqual({ ok: false, reason: 'no v1 signature in webhook-signature' });
    const other = `whsec_${Buffer.alloc(40, 1).toString('base64')}`;
    expect(verifySignature([other, secret], given, 'body', now)).toEqual({ ok: true, secretIndex: 1 });
    expect(verifySignature([other, other], given, 'body', now)).toEqual({ ok: false, reason: 'no signature matches the 2 secrets' });
  });
});
