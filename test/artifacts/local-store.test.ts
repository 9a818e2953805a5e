// The local artifact store on a real temporary folder: what it writes, the hash it reports, atomic
// overwrites, and the keys it refuses.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { InvalidArtifactKeyError, LocalArtifactStore } from '../../src/artifacts';
import { createArtifactStore, loadArtifactSettings } from '../../src/config/settings';
import { ConfigError } from '../../src/platform-client/config';

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

async function* chunks(...parts: (string | Uint8Array)[]): AsyncIterable<Uint8Array> {
  for (const part of parts) {
    await new Promise((r) => setImmediate(r));
    yield typeof part === 'string' ? Buffer.from(part) : part;
  }
}

describe('LocalArtifactStore', () => {
  let root: string;
  let store: LocalArtifactStore;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'artifact-store-'));
    store = new LocalArtifactStore(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('streams a body to its key, creating folders, and reports size and sha256', async () => {
    const big = Buffer.alloc(300_000, 7);
    const stored = await store.put('media/wf-1/task-1/0-video.mp4', chunks('head', big, 'tail'), {
      contentType: 'video/mp4',
    });
    const expected = Buffer.concat([Buffer.from('head'), big, Buffer.from('tail')]);
    const file = path.join(root, 'media', 'wf-1', 'task-1', '0-video.mp4');
    expect(stored).toEqual({
      uri: pathToFileURL(file).href,
      bytes: expected.length,
      sha256: sha256(expected),
      contentType: 'video/mp4',
    });
    expect(fileURLToPath(stored.uri)).toBe(file);
    expect(readFileSync(file).equals(expected)).toBe(true);
    expect(store.location).toBe(pathToFileURL(root).href);
  });

  it('overwrites an existing key atomically: the old file stays whole until the new one is complete', async () => {
    await store.put('a/b.txt', chunks('old content'));
    const file = store.pathOf('a/b.txt');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* slow(): AsyncIterable<Uint8Array> {
      yield Buffer.from('new ');
      await gate;
      yield Buffer.from('content');
    }
    const writing = store.put('a/b.txt', slow());
    await new Promise((r) => setTimeout(r, 50));
    // Half way: the key still holds the old bytes, the new ones are in a hidden temp file.
    expect(readFileSync(file, 'utf8')).toBe('old content');
    release();
    const stored = await writing;
    expect(readFileSync(file, 'utf8')).toBe('new content');
    expect(stored.sha256).toBe(sha256(Buffer.from('new content')));
    expect(readdirSync(path.dirname(file))).toEqual(['b.txt']);
  });

  it('leaves nothing under the key when the body fails half way', async () => {
    async function* broken(): AsyncIterable<Uint8Array> {
      yield Buffer.from('partial');
      await new Promise((r) => setImmediate(r));
      throw new Error('connection reset');
    }
    await expect(store.put('x/y.bin', broken())).rejects.toThrow('connection reset');
    expect(existsSync(store.pathOf('x/y.bin'))).toBe(false);
    expect(readdirSync(path.join(root, 'x'))).toEqual([]);
  });

  it('stops when its signal is aborted, leaving no file', async () => {
    const controller = new AbortController();
    async function* endless(): AsyncIterable<Uint8Array> {
      for (;;) {
        await new Promise((r) => setTimeout(r, 5));
        yield Buffer.from('more');
      }
    }
    setTimeout(() => controller.abort(), 30);
    await expect(store.put('z/endless.bin', endless(), { signal: controller.signal })).rejects.toThrow();
    expect(readdirSync(path.join(root, 'z'))).toEqual([]);
  });

  it.each([
    ['', 'must not be empty'],
    ['/etc/passwd', 'must be relative'],
    ['C:/temp/x', 'must be relative'],
    ['a/../../escape', 'must not contain ".." segments'],
    ['..', 'must not contain ".." segments'],
    ['a\\b', 'must not contain backslashes'],
    ['a//b', 'must not contain empty segments'],
    ['a/b/', 'must not contain empty segments'],
    ['./a', 'must not contain "." segments'],
  ])('refuses the key %j (%s)', async (key, rule) => {
    const refused = await store.put(key, chunks('x')).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(InvalidArtifactKeyError);
    expect((refused as Error).message).toContain(`Invalid artifact key ${JSON.stringify(key)}: ${rule}`);
    expect(readdirSync(root)).toEqual([]);
  });
});

describe('artifact settings', () => {
  it('defaults ARTIFACT_DIR to .data/artifacts under the working directory', () => {
    expect(loadArtifactSettings({})).toEqual({ ARTIFACT_DIR: path.join(process.cwd(), '.data', 'artifacts') });
  });
  it('resolves a relative ARTIFACT_DIR to an absolute folder, and builds the local store on it', () => {
    const store = createArtifactStore({ ARTIFACT_DIR: 'some/dir' });
    expect(store.rootDir).toBe(path.resolve('some/dir'));
    expect(store.location).toBe(pathToFileURL(path.resolve('some/dir')).href);
  });
  it('refuses an empty ARTIFACT_DIR, naming it', () => {
    expect(() => loadArtifactSettings({ ARTIFACT_DIR: ' ' })).toThrow(ConfigError);
    expect(() => loadArtifactSettings({ ARTIFACT_DIR: ' ' })).toThrow(/ARTIFACT_DIR: must not be empty/);
  });
});
