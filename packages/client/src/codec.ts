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
import type { Client, WorkflowHandle } from '@temporalio/client';
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

// Marks what `instanceof` cannot tell across two copies of this package in one backend.
const ENCRYPTS = Symbol.for('platform-ops.payload-encryption');
const PLAINTEXT_NAMESPACE = Symbol.for('platform-ops.plaintext-namespace');

export class PayloadEncryption implements PayloadCodec {
  readonly [ENCRYPTS] = true;
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

const THE_FIX =
  'build the Client with the data converter, `new Client({ connection, namespace, dataConverter: loadDataConverter() })`, ' +
  'which reads the key from PAYLOAD_KEY_FILE or PAYLOAD_KEYS (docs/encryption.md)';

/** A write refused before anything was sent: it would have put customers' content in Temporal's history in the clear. */
export class PlaintextRefusedError extends Error {
  override readonly name = 'PlaintextRefusedError';
}

/** An encrypted result or query answer read through a client that cannot decrypt it. */
export class EncryptedPayloadUnreadableError extends Error {
  override readonly name = 'EncryptedPayloadUnreadableError';
  constructor(
    message: string,
    readonly keyId: string | undefined,
  ) {
    super(message);
  }
}

type MarkedClient = Client & { [PLAINTEXT_NAMESPACE]?: string };

export const encryptsPayloads = (client: Client): boolean =>
  client.options.loadedDataConverter.payloadCodecs.some(
    (codec) => (codec as { [ENCRYPTS]?: unknown })[ENCRYPTS] === true,
  );

const warnedNamespaces = new Set<string>();

/**
 * Lets `client` write payloads unencrypted to `namespace`, which must be its own: for a namespace that keeps them in
 * the clear on purpose. Said once per namespace as a process warning (PLATFORM_OPS_PLAINTEXT).
 */
export function allowPlaintext<C extends Client>(client: C, namespace: string): C {
  if (namespace !== client.options.namespace) {
    throw new PlaintextRefusedError(
      `allowPlaintext names namespace "${namespace.slice(0, 200)}", but this Client writes to ` +
        `"${client.options.namespace}": name the Client's own namespace.`,
    );
  }
  (client as MarkedClient)[PLAINTEXT_NAMESPACE] = namespace;
  if (!warnedNamespaces.has(namespace)) {
    warnedNamespaces.add(namespace);
    process.emitWarning(
      `Payloads written to namespace "${namespace}" by this process are not encrypted (allowPlaintext): ` +
        "prompts, states and batch lines are readable in Temporal's history.",
      { code: 'PLATFORM_OPS_PLAINTEXT' },
    );
  }
  return client;
}

/** Refuses, before anything is sent, a write through a client that does not encrypt, unless allowPlaintext said so. */
export function assertEncryptedWrites(client: Client, what: string): void {
  if (encryptsPayloads(client)) return;
  const namespace = client.options.namespace;
  if ((client as MarkedClient)[PLAINTEXT_NAMESPACE] === namespace) return;
  throw new PlaintextRefusedError(
    `${what} refused before anything was sent: this Client's data converter does not encrypt, so the input would ` +
      `be written to Temporal's history in the clear. Fix: ${THE_FIX}. A namespace that keeps payloads in the ` +
      `clear on purpose: allowPlaintext(client, '${namespace}').`,
  );
}

const UNKNOWN_ENCRYPTED = /Unknown encoding: binary\/encrypted/;

const keyIdOf = (payload: temporal.api.common.v1.IPayload | undefined): string | undefined => {
  const id = payload?.metadata?.[KEY_ID_METADATA];
  return id ? utf8Decode(id).slice(0, 70) : undefined;
};

/**
 * The handle as it is for a client that decrypts; else its result and queries fail, where the SDK would say only
 * "Unknown encoding", with the fix and the id of the key the payload needs.
 */
export function readableHandle<H extends WorkflowHandle>(client: Client, handle: H): H {
  if (encryptsPayloads(client)) return handle;
  const { namespace } = client.options;
  const execution = { workflowId: handle.workflowId };
  const explain = async (err: unknown, what: string, keyId: () => Promise<string | undefined>): Promise<never> => {
    if (!(err instanceof Error) || !UNKNOWN_ENCRYPTED.test(err.message)) throw err;
    const id = await keyId().catch(() => undefined);
    throw new EncryptedPayloadUnreadableError(
      `The ${what} of workflow ${handle.workflowId} is encrypted with key "${id ?? 'unknown'}", and this Client ` +
        `cannot decrypt it. Fix: ${THE_FIX}, with a keyring that holds that key.`,
      id,
    );
  };
  const resultKeyId = async () => {
    const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace,
      execution,
      maximumPageSize: 1,
    });
    return keyIdOf(history?.events?.[0]?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0]);
  };
  const queryKeyId = (queryType: string) => async () => {
    const answer = await client.workflowService.queryWorkflow({ namespace, execution, query: { queryType } });
    return keyIdOf(answer.queryResult?.payloads?.[0]);
  };
  const query: H['query'] = (def, ...args) =>
    handle
      .query(def, ...args)
      .catch((err: unknown) => explain(err, 'query answer', queryKeyId(typeof def === 'string' ? def : def.name)));
  const result = (() => handle.result().catch((err: unknown) => explain(err, 'result', resultKeyId))) as H['result'];
  return { ...handle, query, result };
}
