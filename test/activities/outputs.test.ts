// keepTaskOutputs, the real activity code run in MockActivityEnvironment, against the shared emulator's
// real output URLs (clock ×10: [emulator:ttl=30] is 3 real seconds) and a small local HTTP server for
// the answers the emulator does not give (5xx, header checks).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import type { FetchPolicy } from '../../src/fetching/policy';
import { testFetchPolicy } from '../helpers/fetch-policy';
import {
  createOutputActivities,
  type KeepTaskOutputsInput,
} from '../../src/operations/mediaGeneration/activities-outputs';
import { FailureType, outputsOf, type KeptOutput, type TaskResult } from '@platform-ops/client';
import { LocalArtifactStore, safeSegment } from '../../src/artifacts';
import { emulatorPlatform, uniqueId } from '../helpers/temporal';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** Submits a text-to-video task with sound and polls until it succeeds; seenDoneAt is when we saw it. */
async function finishedTask(prompt: string): Promise<{ taskId: string; result: TaskResult; seenDoneAt: number }> {
  const platform = emulatorPlatform();
  const { task_id: taskId } = await platform.submitTextToVideo({ prompt, sound: true });
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(50)) {
    const result = await platform.getTaskResult(taskId);
    if (result.task.status === 'TASK_STATUS_SUCCEED') return { taskId, result, seenDoneAt: Date.now() };
    if (result.task.status === 'TASK_STATUS_FAILED') throw new Error(`task ${taskId} failed: ${result.task.reason}`);
  }
  throw new Error(`task ${taskId} did not finish within 10 s`);
}

/** The refs the workflow hands over (the wait activity's own reading of task-result). */
const refsOf = outputsOf;

interface Run {
  kept?: KeptOutput[];
  error?: unknown;
  heartbeats: unknown[];
  logs: LogEntry[];
}

async function keep(
  store: LocalArtifactStore,
  input: KeepTaskOutputsInput,
  heartbeatDetails?: unknown,
  policy: FetchPolicy = testFetchPolicy(),
): Promise<Run> {
  const logs: LogEntry[] = [];
  const env = new MockActivityEnvironment(
    { heartbeatDetails },
    { logger: new DefaultLogger('INFO', (e) => logs.push(e)) },
  );
  const heartbeats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => heartbeats.push(d));
  const activities = createOutputActivities(store, policy);
  try {
    return { kept: await env.run((i: KeepTaskOutputsInput) => activities.keepTaskOutputs(i), input), heartbeats, logs };
  } catch (error) {
    return { error, heartbeats, logs };
  }
}

function failureOf(run: Run): ApplicationFailure {
  expect(run.error).toBeInstanceOf(ApplicationFailure);
  return run.error as ApplicationFailure;
}

/** Every file under a folder, recursively (relative paths). */
const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => d.name)
    : [];

let root: string;
let store: LocalArtifactStore;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'keep-outputs-'));
  store = new LocalArtifactStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('keepTaskOutputs against the emulator', () => {
  it('copies the video and the audio of a finished task, with sizes and sha256 of what the URLs serve', async () => {
    const { taskId, result, seenDoneAt } = await finishedTask('a cat [emulator:duration=1000] [emulator:ttl=30]');
    const outputs = refsOf(result);
    expect(outputs.map((o) => o.kind)).toEqual(['video', 'audio']);
    const workflowId = uniqueId('wf/odd id');

    const run = await keep(store, { workflowId, taskId, outputs, seenDoneAt });

    expect(run.error).toBeUndefined();
    const kept = run.kept!;
    expect(kept).toHaveLength(2);
    // The unsafe characters replaced, and a hash of the whole id so that "wf/odd id" and "wf_odd_id" differ.
    const safeWf = safeSegment(workflowId);
    expect(safeWf).toMatch(new RegExp(`^${workflowId.replace(/[^A-Za-z0-9._-]/g, '_')}~[0-9a-f]{16}$`));
    for (const [i, [copy, ref]] of kept.map((k, j) => [k, outputs[j]] as const).entries()) {
      const direct = Buffer.from(await (await fetch(ref.url)).arrayBuffer());
      const file = fileURLToPath(copy.kept.uri);
      expect(path.relative(root, file)).toBe(path.join('media', safeWf, taskId, `${i}-${ref.kind}.${ref.type}`));
      expect(readFileSync(file).equals(direct)).toBe(true);
      expect(copy).toEqual({
        kind: ref.kind,
        originalUrl: ref.url,
        ttlSeconds: 30,
        expiresAt: new Date(seenDoneAt + 30_000).toISOString(),
        kept: { uri: copy.kept.uri, bytes: direct.length, sha256: sha256(direct), contentType: expect.any(String) },
      });
    }
    expect(kept.map((k) => k.kept.contentType)).toEqual(['video/mp4', 'audio/wav']);
    // One heartbeat at least per file, so a cancellation reaches the copy.
    expect(run.heartbeats).toEqual(
      expect.arrayContaining([expect.objectContaining({ file: 0 }), expect.objectContaining({ file: 1 })]),
    );
    const lines = run.logs.filter((l) => l.message === 'Kept task output');
    expect(lines.map((l) => l.meta)).toEqual(
      kept.map((k): unknown =>
        expect.objectContaining({ bytes: k.kept.bytes, sha256: k.kept.sha256, key: expect.stringMatching(/^media\//) }),
      ),
    );
    // The output's URL is the customer's media: only its host is logged.
    expect(lines.map((l) => Object.keys(l.meta ?? {}).filter((k) => /url/i.test(k)))).toEqual(kept.map(() => []));

    // A retried copy overwrites the same keys with the same bytes.
    const again = await keep(store, { workflowId, taskId, outputs, seenDoneAt });
    expect(again.kept!.map((k) => k.kept)).toEqual(kept.map((k) => k.kept));
    expect(filesUnder(root).sort()).toEqual(['0-video.mp4', '1-audio.wav']);
  });

  it('fails as OutputExpired, naming the TTL, once the URL has expired, and leaves no file', async () => {
    const { taskId, result, seenDoneAt } = await finishedTask('a brief cat [emulator:duration=100] [emulator:ttl=1]');
    await sleep(300); // the TTL is 0.1 real seconds on the ×10 clock
    const outputs = refsOf(result);

    const run = await keep(store, { workflowId: uniqueId('wf'), taskId, outputs, seenDoneAt });

    const failure = failureOf(run);
    expect(failure.type).toBe(FailureType.OutputExpired);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(
      new RegExp(`^video output 1 of task ${taskId} \\(http://[^/?]+\\) could not be copied`),
    );
    expect(failure.message).toMatch(/answered HTTP 410 at .*TTL of 1 s/);
    expect(filesUnder(root)).toEqual([]);
  });
});

describe('keepTaskOutputs against other servers', () => {
  let server: Server;
  let base: string;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      if (req.url?.startsWith('/stall/')) {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.write('the first bytes, then nothing');
        return;
      }
      if (req.url === '/to-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/x.png' }).end();
        return;
      }
      const status = Number(/^\/status\/(\d+)/.exec(req.url ?? '')?.[1] ?? 200);
      res.writeHead(status, { 'content-type': 'image/png' }).end(status === 200 ? 'image bytes' : 'no');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  const input = (url: string, seenDoneAt = Date.now(), ttlSeconds = 3600): KeepTaskOutputsInput => ({
    workflowId: 'wf-1',
    taskId: 'task-1',
    outputs: [{ kind: 'image', url, ttlSeconds, type: 'png' }],
    seenDoneAt,
  });

  it('sends no credentials, and keeps presigned tokens out of messages (5xx: retryable)', async () => {
    const run = await keep(store, input(`${base}/status/503/img.png?X-Amz-Signature=SECRET123`));
    const failure = failureOf(run);
    expect(failure.type).toBe(FailureType.PlatformUnavailable);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain(`image output 1 of task task-1 (${base}) could not be copied yet`);
    expect(JSON.stringify([failure.message, failure.details])).not.toMatch(/SECRET123|img\.png/);
    const request = seen.find((s) => s.url.includes('SECRET123'))!;
    expect(request.headers.authorization).toBeUndefined();
    expect(Object.keys(request.headers).filter((h) => /auth|key|token|cookie/i.test(h))).toEqual([]);
  });

  it('refuses, finally, an output on a host not allowed or redirected into link-local, before any byte is kept', async () => {
    const before = seen.length;
    const other = failureOf(
      await keep(store, input(`${base}/x.png`), undefined, testFetchPolicy({ allowedHosts: ['cdn.example.com'] })),
    );
    expect(other).toMatchObject({ type: FailureType.PlatformRejected, nonRetryable: true });
    expect(other.message).toBe(
      `image output 1 of task task-1 (${base}) was not copied: host ${new URL(base).host} is not in FETCH_ALLOWED_HOSTS`,
    );
    expect(seen.length).toBe(before);
    // A URL that is not http(s) is named by its scheme alone: its path is the customer's media.
    const ftp = failureOf(await keep(store, input('ftp://files.example.com/private/x.png')));
    expect(ftp).toMatchObject({ type: FailureType.InvalidInput, nonRetryable: true });
    expect(ftp.message).toBe('image output 1 of task task-1 has no usable URL (its scheme is "ftp:", not http(s))');

    const redirected = failureOf(await keep(store, input(`${base}/to-metadata`)));
    expect(redirected).toMatchObject({ type: FailureType.PlatformRejected, nonRetryable: true });
    expect(redirected.message).toMatch(/host 169\.254\.169\.254 is not in FETCH_ALLOWED_HOSTS \(redirect 1\)$/);
    expect(filesUnder(root)).toEqual([]);
  });

  it('refuses an output over DOWNLOAD_MAX_MB, by its Content-Length or as it streams', async () => {
    const small = testFetchPolicy({ maxDownloadBytes: 8 });
    const declared = failureOf(await keep(store, input(`${base}/x.png`), undefined, small));
    expect(declared).toMatchObject({ type: FailureType.PlatformRejected, nonRetryable: true });
    expect(declared.message).toMatch(/was not copied: it is larger than DOWNLOAD_MAX_MB/);
    // No Content-Length, and the body never ends: cut at the cap, not at the timeout.
    const started = Date.now();
    const streamed = failureOf(await keep(store, input(`${base}/stall/v.mp4`), undefined, small));
    expect(streamed).toMatchObject({ type: FailureType.PlatformRejected, nonRetryable: true });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(filesUnder(root)).toEqual([]);
  });

  it('fails as OutputExpired when a 5xx comes after the TTL ran out', async () => {
    const seenDoneAt = Date.now() - 10_000;
    const failure = failureOf(await keep(store, input(`${base}/status/502/x.png`, seenDoneAt, 5)));
    expect(failure.type).toBe(FailureType.OutputExpired);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain(
      `its TTL of 5 s ran out at ${new Date(seenDoneAt + 5_000).toISOString()} (counted from when the task was seen done at ${new Date(seenDoneAt).toISOString()})`,
    );
  });

  it.each([403, 404])('fails as OutputExpired on HTTP %i even before the TTL runs out', async (status) => {
    const failure = failureOf(await keep(store, input(`${base}/status/${status}/x.png`)));
    expect(failure.type).toBe(FailureType.OutputExpired);
    expect(failure.message).toContain(`answered HTTP ${status}`);
  });

  it('fails as retryable PlatformUnavailable when the server cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const failure = failureOf(await keep(store, input(`http://127.0.0.1:${port}/x.png?token=SECRET`)));
    expect(failure.type).toBe(FailureType.PlatformUnavailable);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toMatch(/download failed \(.*ECONNREFUSED/);
    expect(failure.message).not.toContain('SECRET');
  });

  it('stops at once when the activity is cancelled mid-download, leaving no file', async () => {
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('WARN') });
    const activities = createOutputActivities(store, testFetchPolicy());
    const running = env.run((i: KeepTaskOutputsInput) => activities.keepTaskOutputs(i), input(`${base}/stall/v.mp4`));
    await sleep(200);
    const cancelledAt = Date.now();
    env.cancel();
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
    expect(Date.now() - cancelledAt).toBeLessThan(1_000);
    expect(filesUnder(root)).toEqual([]);
  });

  it('a retried attempt skips the copies its last heartbeat lists (their URLs may be gone by then)', async () => {
    const first: KeptOutput = {
      kind: 'video',
      originalUrl: `${base}/status/410/v.mp4`,
      ttlSeconds: 3600,
      kept: { uri: 'file:///earlier/0-video.mp4', bytes: 1, sha256: 'ab' },
    };
    const run = await keep(
      store,
      {
        workflowId: 'wf-1',
        taskId: 'task-1',
        outputs: [
          { kind: 'video', url: first.originalUrl, ttlSeconds: 3600 },
          { kind: 'image', url: `${base}/files/cover.JPG`, ttlSeconds: 3600 },
        ],
        seenDoneAt: Date.now(),
      },
      { file: 1, bytes: 0, kept: [first] },
    );
    expect(run.error).toBeUndefined();
    expect(run.kept![0]).toEqual(first);
    expect(run.kept![1].kept).toMatchObject({ bytes: 'image bytes'.length, contentType: 'image/png' });
    expect(run.kept![1].kept.uri).toMatch(/\/media\/wf-1\/task-1\/1-image\.jpg$/);
    expect(seen.some((s) => s.url.includes('/status/410/'))).toBe(false);
  });
});
