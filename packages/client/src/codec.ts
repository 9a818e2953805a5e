import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  METADATA_ENCODING_KEY,
  ValueError,
  type DataConverter,
  type Payload,
  type PayloadCodec,
} from '@temporalio/common';
import { decode as utf8Decode, encode as utf8Encode } from '@temporalio/common/lib/encoding';
import { temporal } from '@temporalio/proto';
import { failureConverter } from './failure-converter';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

const CIPHER = 'aes-256-gcm';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const MAX_KEY_FILE_BYTES = 64 * 1024;
const MAX_KEYS = 100;

export class KeyringError extends Error {
  override name = 'KeyringError';
}

export class Keyring {
  private constructor(
    readonly currentId: string,
    private readonly keys: ReadonlyMap<string, Buffer>,
  ) {}

  static of(setting: string, keys: ReadonlyArray<readonly [id: string, base64: string]>): Keyring {
    if (keys.length === 0) throw new KeyringError(`${setting}: holds no key; at least one is needed.`);
    if (keys.length > MAX_KEYS) throw new KeyringError(`${setting}: holds ${keys.length} keys; at most ${MAX_KEYS}.`);
    const map = new Map<string, Buffer>();
    for (const [id, base64] of keys) {
      if (!KEY_ID.test(id)) {
        throw new KeyringError(`${setting}: a key id must be 1 to 64 of A-Z a-z 0-9 . _ - (got "${id.slice(0, 70)}").`);
      }
      if (map.has(id)) throw new KeyringError(`${setting}: key id "${id}" is given twice.`);
      const key = /^[A-Za-z0-9+/]+={0,2}$/.test(base64.trim()) ? Buffer.from(base64.trim(), 'base64') : undefined;
      if (key?.length !== KEY_BYTES) {
        throw new KeyringError(
          `${setting}: key "${id}" is not ${KEY_BYTES} bytes in base64 (AES-256 needs ${KEY_BYTES}; ` +
            '`openssl rand -base64 32` makes one).',
        );
      }
      map.set(id, key);
    }
    return new Keyring(keys[0][0], map);
  }

  static fromFile(setting: string, contents: unknown): Keyring {
    const file = contents as Partial<KeyFile> | null;
    if (typeof file !== 'object' || file === null || typeof file.keys !== 'object' || file.keys === null) {
      throw new KeyringError(
        `${setting}: must be a JSON object { "current": "<key id>", "keys": { "<key id>": "<base64>" } }.`,
      );
    }
    const entries = Object.entries(file.keys);
    if (entries.some(([, v]) => typeof v !== 'string')) {
      throw new KeyringError(`${setting}: every value of "keys" must be a base64 string.`);
    }
    const current = file.current;
    if (typeof current !== 'string' || !Object.hasOwn(file.keys, current)) {
      throw new KeyringError(
        `${setting}: "current" must name one of its keys (${entries.map(([id]) => id).join(', ')}).`,
      );
    }
    const ordered = [...entries.filter(([id]) => id === current), ...entries.filter(([id]) => id !== current)];
    return Keyring.of(setting, ordered);
  }

  get ids(): string[] {
    return [...this.keys.keys()];
  }

  key(id: string): Buffer | undefined {
    return this.keys.get(id);
  }

  get current(): Buffer {
    return this.keys.get(this.currentId)!;
  }
}

export interface KeyFile {
  current: string;
  keys: Record<string, string>;
}

export const newKey = (): string => randomBytes(KEY_BYTES).toString('base64');

export class PayloadEncryption implements PayloadCodec {
  constructor(readonly keyring: Keyring) {}

  encode(payloads: Payload[]): Promise<Payload[]> {
    return new Promise((resolve) => resolve(payloads.map((p) => this.encodeOne(p))));
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    // A payload that cannot be decoded rejects the call, not the process.
    return new Promise((resolve) => resolve(payloads.map((p) => this.decodeOne(p))));
  }

  encodeOne(payload: Payload): Payload {
    const { currentId, current } = this.keyring;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(CIPHER, current, nonce, { authTagLength: TAG_BYTES });
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const data = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { [METADATA_ENCODING_KEY]: utf8Encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8Encode(currentId) },
      data,
    };
  }

  decodeOne(payload: Payload): Payload {
    const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
    if (!encoding || utf8Decode(encoding) !== ENCRYPTED_ENCODING) return payload;
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    const id = idBytes ? utf8Decode(idBytes) : '';
    const key = this.keyring.key(id);
    // The id comes with the payload: quoted short.
    const shown = id.slice(0, 70);
    if (!key) {
      throw new ValueError(
        `An encrypted payload names key "${shown}", which this process's keyring does not hold ` +
          `(it holds ${this.keyring.ids.join(', ')}): keep the old key in PAYLOAD_KEY_FILE or PAYLOAD_KEYS to decode it.`,
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < NONCE_BYTES + TAG_BYTES)
      throw new ValueError(`An encrypted payload (key "${shown}") is truncated.`);
    const decipher = createDecipheriv(CIPHER, key, data.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new ValueError(
        `An encrypted payload does not decrypt with key "${shown}": it was altered, or that key changed.`,
      );
    }
    return temporal.api.common.v1.Payload.decode(plain);
  }
}

export function loadKeyring(
  env: NodeJS.ProcessEnv = process.env,
  { localKeyFile }: { localKeyFile?: string } = {},
): Keyring | undefined {
  const mode = (env.PAYLOAD_ENCRYPTION ?? 'on').trim();
  if (mode !== 'on' && mode !== 'off')
    throw new KeyringError(`PAYLOAD_ENCRYPTION: must be on or off (got "${mode.slice(0, 20)}").`);
  if (mode === 'off') return undefined;
  const file = env.PAYLOAD_KEY_FILE?.trim();
  const inline = env.PAYLOAD_KEYS?.trim();
  if (file && inline) throw new KeyringError('PAYLOAD_KEY_FILE and PAYLOAD_KEYS: set one of them, not both.');
  if (inline) {
    return Keyring.of(
      'PAYLOAD_KEYS',
      inline.split(',').map((entry) => {
        const at = entry.indexOf(':');
        if (at < 0) throw new KeyringError('PAYLOAD_KEYS: each entry is <key id>:<base64 key>, comma-separated.');
        return [entry.slice(0, at).trim(), entry.slice(at + 1).trim()] as const;
      }),
    );
  }
  if (file) return keyringInFile('PAYLOAD_KEY_FILE', file);
  if (localKeyFile && existsSync(localKeyFile)) return keyringInFile("the local stack's key file", localKeyFile);
  throw new KeyringError(
    'PAYLOAD_KEY_FILE or PAYLOAD_KEYS: one is required while PAYLOAD_ENCRYPTION is on, its default ' +
      '(docs/encryption.md); `npm start` makes a local key by itself.',
  );
}

function keyringInFile(setting: string, file: string): Keyring {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new KeyringError(`${setting}: ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  if (text.length > MAX_KEY_FILE_BYTES) throw new KeyringError(`${setting}: ${file} is larger than a key file.`);
  let contents: unknown;
  try {
    contents = JSON.parse(text);
  } catch {
    throw new KeyringError(`${setting}: ${file} is not JSON.`);
  }
  return Keyring.fromFile(`${setting} (${file})`, contents);
}

export function ensureLocalKeyFile(file: string): boolean {
  if (existsSync(file)) return false;
  mkdirSync(path.dirname(file), { recursive: true });
  const id = `local-${new Date().toISOString().slice(0, 10)}`;
  const contents: KeyFile = { current: id, keys: { [id]: newKey() } };
  // `wx`: two starts at once never overwrite each other's key.
  try {
    writeFileSync(file, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  return true;
}

// Exported as well as named by path, so that every build of this file (the client package's too) carries it.
export { failureConverter };
/** For a workflow bundle built ahead of its worker (bundleWorkflowCode's failureConverterPath): the worker's own. */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

export function dataConverterOf(keyring: Keyring | undefined): DataConverter {
  if (!keyring) return {};
  return { payloadCodecs: [new PayloadEncryption(keyring)], failureConverterPath: FAILURE_CONVERTER_PATH };
}

export const loadDataConverter = (
  env: NodeJS.ProcessEnv = process.env,
  opts: { localKeyFile?: string } = {},
): DataConverter => dataConverterOf(loadKeyring(env, opts));
