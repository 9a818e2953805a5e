// The payload codec and its keyring, on their own (no server): what is written, what decodes, and what each bad
// setting says. The codec on a real server is tested in test/codec/encrypted-runs.test.ts.
import { createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import {
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  Keyring,
  KeyringError,
  loadKeyring,
  PayloadEncryption,
} from '@platform-ops/client';

const MARKER = 'marker-7f3c a red fox in the snow';
const key = () => randomBytes(32).toString('base64');
const text = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('utf8');
const payloadOf = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);

/** The error `fn` throws; fails the test if it throws none. */
function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

describe('PayloadEncryption', () => {
  const a = key();
  const codec = new PayloadEncryption(Keyring.of('test', [['a', a]]));

  it('writes nothing readable: the value, its encoding and its metadata are all inside the ciphertext', async () => {
    const [encoded] = await codec.encode([payloadOf({ prompt: MARKER })]);
    expect(text(encoded.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(encoded.metadata?.[KEY_ID_METADATA])).toBe('a');
    expect(Object.keys(encoded.metadata ?? {}).sort()).toEqual(['encoding', KEY_ID_METADATA].sort());
    expect(text(encoded.data)).not.toContain('marker-7f3c');
    expect(text(encoded.data)).not.toContain('json/plain');
    const [decoded] = await codec.decode([encoded]);
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual({ prompt: MARKER });
  });

  it('uses a fresh nonce for every payload: the same value never encrypts the same twice', async () => {
    const [one, two] = await codec.encode([payloadOf(MARKER), payloadOf(MARKER)]);
    expect(Buffer.from(one.data!).equals(Buffer.from(two.data!))).toBe(false);
    expect(Buffer.from(one.data!).subarray(0, 12).equals(Buffer.from(two.data!).subarray(0, 12))).toBe(false);
  });

  it('passes a payload written without it through unchanged (every history recorded before it)', async () => {
    const plain = payloadOf({ prompt: 'old' });
    const [decoded] = await codec.decode([plain]);
    expect(decoded).toBe(plain);
  });

  it('decodes with an older key after a rotation, and encodes with the new one', async () => {
    const [old] = await codec.encode([payloadOf(MARKER)]);
    const rotated = new PayloadEncryption(
      Keyring.of('test', [
        ['b', key()],
        ['a', a],
      ]),
    );
    const [decoded] = await rotated.decode([old]);
    expect(defaultPayloadConverter.fromPayload(decoded)).toBe(MARKER);
    const [fresh] = await rotated.encode([payloadOf(MARKER)]);
    expect(text(fresh.metadata?.[KEY_ID_METADATA])).toBe('b');
  });

  it('fails the one payload, naming the key id and the settings, when its key is not held', async () => {
    const [encoded] = await codec.encode([payloadOf(MARKER)]);
    const other = new PayloadEncryption(Keyring.of('test', [['b', key()]]));
    await expect(other.decode([encoded])).rejects.toThrow(/names key "a".*holds b.*PAYLOAD_KEY_FILE or PAYLOAD_KEYS/);
  });

  it('refuses a payload altered, truncated or relabelled with another key id', async () => {
    const [encoded] = await codec.encode([payloadOf(MARKER)]);
    const flipped = Buffer.from(encoded.data!);
    flipped[20] ^= 1;
    await expect(codec.decode([{ ...encoded, data: flipped }])).rejects.toThrow(/does not decrypt with key "a"/);
    await expect(codec.decode([{ ...encoded, data: flipped.subarray(0, 10) }])).rejects.toThrow(/truncated/);
    const both = new PayloadEncryption(
      Keyring.of('test', [
        ['a', a],
        ['b', key()],
      ]),
    );
    const relabelled = { ...encoded, metadata: { ...encoded.metadata, [KEY_ID_METADATA]: Buffer.from('b') } };
    await expect(both.decode([relabelled])).rejects.toThrow(/does not decrypt with key "b"/);
  });

  it('writes the format of Temporal’s samples: nonce, then AES-256-GCM ciphertext and tag, no associated data', async () => {
    const [encoded] = await codec.encode([payloadOf(MARKER)]);
    const data = Buffer.from(encoded.data!);
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(a, 'base64'), data.subarray(0, 12));
    decipher.setAuthTag(data.subarray(data.length - 16));
    const plain = Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]);
    const payload = temporal.api.common.v1.Payload.decode(plain);
    expect(defaultPayloadConverter.fromPayload(payload)).toBe(MARKER);
  });
});

describe('loadKeyring', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'keyring-'));
  const file = (name: string, contents: string) => {
    const at = path.join(dir, name);
    writeFileSync(at, contents);
    return at;
  };

  it('reads PAYLOAD_KEYS, the first key encoding', () => {
    const keyring = loadKeyring({ PAYLOAD_KEYS: `new:${key()}, old:${key()}` })!;
    expect(keyring.currentId).toBe('new');
    expect(keyring.ids).toEqual(['new', 'old']);
  });

  it('reads PAYLOAD_KEY_FILE, its current key encoding', () => {
    const at = file('keys.json', JSON.stringify({ current: 'k2', keys: { k1: key(), k2: key() } }));
    const keyring = loadKeyring({ PAYLOAD_KEY_FILE: at })!;
    expect(keyring.currentId).toBe('k2');
    expect(keyring.ids.sort()).toEqual(['k1', 'k2']);
  });

  it('is off only when told so', () => {
    expect(loadKeyring({ PAYLOAD_ENCRYPTION: 'off' })).toBeUndefined();
    expect(() => loadKeyring({})).toThrow(/PAYLOAD_KEY_FILE or PAYLOAD_KEYS: one is required/);
    expect(() => loadKeyring({ PAYLOAD_ENCRYPTION: 'yes' })).toThrow(/PAYLOAD_ENCRYPTION: must be on or off/);
  });

  it('names the setting and the rule, never the key', () => {
    const short = randomBytes(16).toString('base64');
    const err = errorOf(() => loadKeyring({ PAYLOAD_KEYS: `k:${short}` }));
    expect(err).toBeInstanceOf(KeyringError);
    expect(err.message).toMatch(/^PAYLOAD_KEYS: key "k" is not 32 bytes in base64/);
    expect(err.message).not.toContain(short);
    expect(() => loadKeyring({ PAYLOAD_KEYS: key() })).toThrow(/PAYLOAD_KEYS: each entry is <key id>:<base64 key>/);
    expect(() => loadKeyring({ PAYLOAD_KEYS: `a b:${key()}` })).toThrow(/PAYLOAD_KEYS: a key id must be/);
    expect(() => loadKeyring({ PAYLOAD_KEYS: `a:${key()},a:${key()}` })).toThrow(/key id "a" is given twice/);
    expect(() => loadKeyring({ PAYLOAD_KEYS: `a:${key()}`, PAYLOAD_KEY_FILE: '/x' })).toThrow(/not both/);
  });

  it('names the key file and why it cannot be used', () => {
    expect(() => loadKeyring({ PAYLOAD_KEY_FILE: path.join(dir, 'missing.json') })).toThrow(
      /PAYLOAD_KEY_FILE: .*missing\.json cannot be read \(ENOENT\)/,
    );
    expect(() => loadKeyring({ PAYLOAD_KEY_FILE: file('bad.json', '{') })).toThrow(/is not JSON/);
    const noCurrent = file('nocurrent.json', JSON.stringify({ current: 'x', keys: { k1: key() } }));
    expect(() => loadKeyring({ PAYLOAD_KEY_FILE: noCurrent })).toThrow(/"current" must name one of its keys \(k1\)/);
    const secret = key();
    const err = errorOf(() =>
      loadKeyring({ PAYLOAD_KEY_FILE: file('num.json', JSON.stringify({ current: 'k', keys: { k: 5, j: secret } })) }),
    );
    expect(err.message).toMatch(/every value of "keys" must be a base64 string/);
    expect(err.message).not.toContain(secret);
  });
});
