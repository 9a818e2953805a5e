// uploadBatchInput and keepBatchOutputs, the real activity code run in MockActivityEnvironment, against
// the shared emulator over HTTP (clock ×10; each batch's phases are shortened further through its
// metadata overrides). Batches are created and cancelled with the client directly, as the workflow's
// other activities would.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import {
  createBatchOutputActivities,
  type KeepBatchOutputsInput,
  type KeepBatchOutputsResult,
} from '../../src/operations/batchJob/activities-outputs';
import {
  createBatchUploadActivities,
  type UploadBatchInputInput,
  type UploadBatchInputResult,
} from '../../src/operations/batchJob/activities-upload';
import { type Batch, type BatchInputLine, FailureType, toJsonl } from '@platform-ops/client';
import { LocalArtifactStore, safeSegment } from '../../src/artifacts';
import { DEV_API_KEY } from '@platform-ops/emulator';
import type { FetchPolicy } from '../../src/fetching/policy';
import { testFetchPolicy } from '../helpers/fetch-policy';
import { emulatorPlatform, uniqueId } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const ENDPOINT = '/v1/chat/completions' as const;
const chat = (id: string, content: string): BatchInputLine => ({
  custom_id: id,
  body: { model: 'deepseek/deepseek-v3', messages: [{ role: 'user', content }] },
});

const platform = emulatorPlatform();

interface Run<T> {
  value?: T;
  error?: unknown;
  heartbeats: unknown[];
  logs: LogEntry[];
}

async function run<I, T>(fn: (input: I) => Promise<T>, input: I): Promise<Run<T>> {
  const logs: LogEntry[] = [];
  // Logs are collected, not printed: the tests look at them.
  const env = new MockActivityEnvironment({}, { logger: new DefaultLogger('INFO', (e) => logs.push(e)) });
  const heartbeats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => heartbeats.push(d));
  try {
    return { value: await env.run(fn, input), heartbeats, logs };
  } catch (error) {
    return { error, heartbeats, logs };
  }
}

/**
 * The Temporal client the upload answers through, as one that cannot reach the server: the activity then
 * returns its answer for the worker to deliver, which is what these tests read.
 */
const noServer = {
  activity: { complete: () => Promise.reject(new Error('no Temporal server here')) },
} as unknown as Client;

const upload = (
  input: UploadBatchInputInput,
  policy: FetchPolicy = testFetchPolicy(),
): Promise<Run<UploadBatchInputResult>> => {
  const activities = createBatchUploadActivities(platform, policy, noServer);
  return run((i: UploadBatchInputInput) => activities.uploadBatchInput(i), input);
};

function failureOf(r: Run<unknown>): ApplicationFailure {
  expect(r.error).toBeInstanceOf(ApplicationFailure);
  return r.error as ApplicationFailure;
}

/** The emulator's file list (the client has no list call): to see that nothing was uploaded. */
async function uploadedFilenames(): Promise<string[]> {
  const res = await fetch(`${testEnv('emulatorUrl')}/openai/v1/files?purpose=batch`, {
    headers: { authorization: `Bearer ${DEV_API_KEY}` },
  });
  const body = (await res.json()) as { data: Array<{ filename?: string }> };
  return body.data.map((f) => f.filename ?? '');
}

/** Polls the batch until `done` says so (10 s real at most). */
async function pollBatch(batchId: string, done: (b: Batch) => boolean): Promise<Batch> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(25)) {
    const batch = await platform.getBatch(batchId);
    if (done(batch)) return batch;
  }
  throw new Error(`batch ${batchId} did not reach the expected state within 10 s`);
}

let root: string;
let store: LocalArtifactStore;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'keep-batch-'));
  store = new LocalArtifactStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('uploadBatchInput against the emulator', () => {
  it('uploads inline requests as JSONL', async () => {
    const requests = [chat('a', 'hello'), chat('b', 'hi'), chat('c', 'bye')];
    const r = await upload({ endpoint: ENDPOINT, requests });
    expect(r.error).toBeUndefined();
    expect(r.value).toEqual({
      fileId: expect.any(String),
      bytes: Buffer.byteLength(toJsonl(requests)),
      totalRequests: 3,
    });
    const file = await platform.getFile(r.value!.fileId);
    expect(file).toMatchObject({ purpose: 'batch', filename: 'batch-input.jsonl', metadata: { total_requests: 3 } });
    expect(await platform.getFileContent(r.value!.fileId)).toBe(toJsonl(requests));
  });

  it('refuses a bad line as InvalidInput naming the line and rule, and uploads nothing', async () => {
    const filename = `${uniqueId('dup')}.jsonl`;
    const r = await upload({ endpoint: ENDPOINT, requests: [chat('a', 'x'), chat('a', 'y')], filename });
    const failure = failureOf(r);
    expect(failure.type).toBe(FailureType.InvalidInput);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe('requests: line 2.custom_id: must be unique ("a" is also on line 1)');
    expect(await uploadedFilenames()).not.toContain(filename);
    // The list does show that name once a good file is uploaded under it.
    expect((await upload({ endpoint: ENDPOINT, requests: [chat('a', 'x')], filename })).error).toBeUndefined();
    expect((await uploadedFilenames()).filter((f) => f === filename)).toHaveLength(1);
  });

  it('checks the body against the endpoint', async () => {
    const r = await upload({ endpoint: '/v1/completions', requests: [chat('a', 'x')] });
    expect(failureOf(r).message).toBe('requests: line 1: body.prompt is required for /v1/completions');
  });

  describe('from inputFileUri', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'batch-input-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('reads a file:// path and uploads it under its own name', async () => {
      const jsonl = toJsonl([chat('x', 'one'), chat('y', 'two é')]);
      const file = path.join(dir, 'my-requests.jsonl');
      writeFileSync(file, jsonl);
      const r = await upload({ endpoint: ENDPOINT, inputFileUri: pathToFileURL(file).href });
      expect(r.error).toBeUndefined();
      expect(r.value).toMatchObject({ bytes: Buffer.byteLength(jsonl), totalRequests: 2 });
      expect(await platform.getFile(r.value!.fileId)).toMatchObject({ filename: 'my-requests.jsonl' });
      expect(await platform.getFileContent(r.value!.fileId)).toBe(jsonl);
    });

    it('names the line of a bad file', async () => {
      const file = path.join(dir, 'bad.jsonl');
      writeFileSync(file, `${JSON.stringify(chat('x', 'one'))}\nnot json\n`);
      const failure = failureOf(await upload({ endpoint: ENDPOINT, inputFileUri: pathToFileURL(file).href }));
      expect(failure.type).toBe(FailureType.InvalidInput);
      expect(failure.message).toBe('inputFileUri: line 2: must be a JSON object');
    });

    it('refuses a file over 100 MB by its size, and a missing file, as InvalidInput', async () => {
      const big = path.join(dir, 'big.jsonl');
      writeFileSync(big, '');
      truncateSync(big, 101 * 2 ** 20); // sparse: a size without the bytes (or the time to read them)
      const tooBig = failureOf(await upload({ endpoint: ENDPOINT, inputFileUri: pathToFileURL(big).href }));
      expect(tooBig).toMatchObject({ type: FailureType.InvalidInput, nonRetryable: true });
      expect(tooBig.message).toBe(`inputFileUri: ${big} must be at most 100 MB (is 101.0 MB)`);

      const missing = path.join(dir, 'nope.jsonl');
      const gone = failureOf(await upload({ endpoint: ENDPOINT, inputFileUri: pathToFileURL(missing).href }));
      expect(gone).toMatchObject({ type: FailureType.InvalidInput, nonRetryable: true });
      expect(gone.message).toBe(`inputFileUri: ${missing} cannot be read (ENOENT)`);
    });

    it('reads only files inside INPUT_FILE_DIR, links resolved', async () => {
      const inside = path.join(dir, 'inside');
      mkdirSync(inside);
      const outsideFile = path.join(dir, 'outside.jsonl');
      writeFileSync(outsideFile, toJsonl([chat('x', 'one')]));
      symlinkSync(outsideFile, path.join(inside, 'link.jsonl'));
      const policy = testFetchPolicy({ inputFileDir: inside });

      const outside = failureOf(
        await upload({ endpoint: ENDPOINT, inputFileUri: pathToFileURL(outsideFile).href }, policy),
      );
      expect(outside).toMatchObject({ type: FailureType.InvalidInput, nonRetryable: true });
      expect(outside.message).toBe(`inputFileUri: ${outsideFile} is outside INPUT_FILE_DIR (${inside})`);

      const climbing = `file://${inside}/../outside.jsonl`;
      expect(failureOf(await upload({ endpoint: ENDPOINT, inputFileUri: climbing }, policy)).message).toMatch(
        /is outside INPUT_FILE_DIR/,
      );

      const linked = failureOf(
        await upload({ endpoint: ENDPOINT, inputFileUri: pathToFileURL(path.join(inside, 'link.jsonl')).href }, policy),
      );
      expect(linked).toMatchObject({ type: FailureType.InvalidInput, nonRetryable: true });
      expect(linked.message).toMatch(/links to a file outside INPUT_FILE_DIR/);
    });

    describe('over http', () => {
      let server: Server;
      let base: string;
      const seen: IncomingHttpHeaders[] = [];
      const jsonl = toJsonl([chat('h1', 'over http'), chat('h2', 'again')]);
      beforeAll(async () => {
        server = createServer((req, res) => {
          seen.push(req.headers);
          if (req.url?.startsWith('/ok.jsonl')) res.writeHead(200, { 'content-type': 'application/jsonl' }).end(jsonl);
          else if (req.url === '/to-ok') res.writeHead(302, { location: '/ok.jsonl' }).end();
          else if (req.url === '/to-metadata') {
            res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
          } else if (req.url === '/to-localhost') res.writeHead(307, { location: 'http://localhost:9/x' }).end();
          else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
          else if (req.url === '/busy') res.writeHead(503).end();
          else res.writeHead(404).end();
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      });
      afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

      it('fetches the file with no credentials, and tells a missing file from a busy server', async () => {
        const r = await upload({ endpoint: ENDPOINT, inputFileUri: `${base}/ok.jsonl?token=secret` });
        expect(r.error).toBeUndefined();
        expect(r.value).toMatchObject({ totalRequests: 2, bytes: Buffer.byteLength(jsonl) });
        expect(await platform.getFileContent(r.value!.fileId)).toBe(jsonl);
        expect(seen[0].authorization).toBeUndefined();

        const missing = failureOf(await upload({ endpoint: ENDPOINT, inputFileUri: `${base}/gone?token=secret` }));
        expect(missing).toMatchObject({ type: FailureType.InvalidInput, nonRetryable: true });
        expect(missing.message).toBe(`inputFileUri: ${base}/gone answered HTTP 404`);

        const busy = failureOf(await upload({ endpoint: ENDPOINT, inputFileUri: `${base}/busy` }));
        expect(busy).toMatchObject({ type: FailureType.PlatformUnavailable, nonRetryable: false });
      });

      it('fetches only from FETCH_ALLOWED_HOSTS, https except a listed loopback host, on every redirect hop', async () => {
        const followed = await upload({ endpoint: ENDPOINT, inputFileUri: `${base}/to-ok` });
        expect(followed.error).toBeUndefined();
        expect(followed.value).toMatchObject({ totalRequests: 2 });

        const refused = async (uri: string, policy?: FetchPolicy) => {
          const before = seen.length;
          const f = failureOf(await upload({ endpoint: ENDPOINT, inputFileUri: uri }, policy));
          expect(f).toMatchObject({ type: FailureType.InvalidInput, nonRetryable: true });
          return { message: f.message, requests: seen.length - before };
        };
        // Not listed: nothing is even asked.
        const port = new URL(base).port;
        expect(await refused(`${base}/ok.jsonl`, testFetchPolicy({ allowedHosts: ['files.example.com'] }))).toEqual({
          message: `inputFileUri: host 127.0.0.1:${port} is not in FETCH_ALLOWED_HOSTS`,
          requests: 0,
        });
        // Plain http only to a loopback host listed exactly (the emulator).
        expect(
          await refused('http://files.example.com/in.jsonl', testFetchPolicy({ allowedHosts: ['files.example.com'] })),
        ).toEqual({
          message:
            'inputFileUri: plain http is fetched only from a loopback host listed in FETCH_ALLOWED_HOSTS (use https for files.example.com)',
          requests: 0,
        });
        // A host let in by a wildcard must be public.
        expect(
          (await refused(`https://127.0.0.1:${port}/ok.jsonl`, testFetchPolicy({ allowedHosts: ['*.0.0.1'] }))).message,
        ).toBe(`inputFileUri: host 127.0.0.1:${port} resolves to 127.0.0.1, which is not a public address`);
        expect((await refused(`${base}/to-metadata`)).message).toBe(
          'inputFileUri: host 169.254.169.254 is not in FETCH_ALLOWED_HOSTS (redirect 1)',
        );
        expect((await refused(`${base}/to-localhost`)).message).toBe(
          'inputFileUri: host localhost:9 is not in FETCH_ALLOWED_HOSTS (redirect 1)',
        );
        expect((await refused(`${base}/loop`)).message).toBe('inputFileUri: more than 5 redirects');
      });
    });
  });
});

describe('keepBatchOutputs against the emulator', () => {
  const keep = (input: KeepBatchOutputsInput): Promise<Run<KeepBatchOutputsResult>> => {
    const activities = createBatchOutputActivities(platform, store);
    return run((i: KeepBatchOutputsInput) => activities.keepBatchOutputs(i), input);
  };

  /** Uploads `requests` with the activity and creates a batch on them with the client. */
  async function createBatch(requests: BatchInputLine[], perRequestMs: number): Promise<Batch> {
    const uploaded = await upload({ endpoint: ENDPOINT, requests });
    expect(uploaded.error).toBeUndefined();
    return platform.createBatch({
      input_file_id: uploaded.value!.fileId,
      endpoint: ENDPOINT,
      metadata: {
        emulator_per_request_ms: String(perRequestMs),
        emulator_validating_ms: '100',
        emulator_finalizing_ms: '100',
        emulator_cancelling_ms: '100',
      },
    });
  }

  const readLines = (uri: string) => readFileSync(fileURLToPath(uri), 'utf8').trim().split('\n');

  it('keeps the output and error files of a completed batch, with a per-request summary', async () => {
    const created = await createBatch([chat('a', 'hello'), chat('b', 'fails [emulator:fail]'), chat('c', 'bye')], 50);
    const batch = await pollBatch(created.id, (b) => b.status === 'COMPLETED');
    expect(batch.output_file_id).toBeTruthy();
    expect(batch.error_file_id).toBeTruthy();
    const workflowId = uniqueId('wf/odd id');

    const r = await keep({
      workflowId,
      batchId: batch.id,
      outputFileId: batch.output_file_id!,
      errorFileId: batch.error_file_id!,
    });

    expect(r.error).toBeUndefined();
    const { output, errors, summary } = r.value!;
    const dir = path.join(root, 'batches', safeSegment(workflowId), batch.id);
    for (const [kept, fileId, name, lines] of [
      [output, batch.output_file_id!, 'output.jsonl', 2],
      [errors, batch.error_file_id!, 'errors.jsonl', 1],
    ] as const) {
      const original = Buffer.from(await platform.getFileContent(fileId), 'utf8');
      const copy = readFileSync(path.join(dir, name));
      expect(copy.equals(original)).toBe(true);
      expect(kept).toEqual({
        fileId,
        uri: pathToFileURL(path.join(dir, name)).href,
        bytes: original.length,
        sha256: sha256(original),
        lines,
      });
    }
    expect(summary).toEqual({
      succeeded: 2,
      failed: 1,
      notRun: 0,
      byErrorCode: { emulator_forced_failure: 1 },
      perRequestUri: pathToFileURL(path.join(dir, 'requests.jsonl')).href,
      sampleFailures: [{ custom_id: 'b', code: 'emulator_forced_failure', message: expect.any(String) }],
    });
    const perRequest = readLines(summary.perRequestUri).map((l) => JSON.parse(l) as unknown);
    expect(perRequest).toHaveLength(3);
    expect(perRequest).toEqual(
      expect.arrayContaining([
        { custom_id: 'a', ok: true, status_code: 200 },
        { custom_id: 'b', ok: false, status_code: 400, error_code: 'emulator_forced_failure' },
        { custom_id: 'c', ok: true, status_code: 200 },
      ]),
    );
    expect(r.logs.find((l) => l.message === 'Kept batch outputs')?.meta).toMatchObject({
      batchId: batch.id,
      succeeded: 2,
      failed: 1,
    });
    // A heartbeat between steps, so a cancellation reaches the activity.
    expect(r.heartbeats.length).toBeGreaterThanOrEqual(3);
    // References and counts only: nothing of the files' contents goes back to the workflow.
    expect(JSON.stringify(r.value)).not.toMatch(/chat\.completion|hello/);

    // With the input's custom_ids, the summary is in input order and counts a request no file mentions.
    const again = await keep({
      workflowId,
      batchId: batch.id,
      outputFileId: batch.output_file_id!,
      errorFileId: batch.error_file_id!,
      customIds: ['c', 'b', 'lost', 'a'],
    });
    expect(again.value!.summary).toMatchObject({
      succeeded: 2,
      failed: 2,
      byErrorCode: { emulator_forced_failure: 1, missing_result: 1 },
    });
    expect(
      readLines(again.value!.summary.perRequestUri).map((l) => (JSON.parse(l) as { custom_id: string }).custom_id),
    ).toEqual(['c', 'b', 'lost', 'a']);
  });

  it('counts the requests a cancel stopped as not run', async () => {
    const requests = Array.from({ length: 10 }, (_, i) => chat(`r${i}`, `request ${i}`));
    const created = await createBatch(requests, 2_000); // 200 ms real per request
    await pollBatch(created.id, (b) => b.request_counts.completed >= 2);
    await platform.cancelBatch(created.id);
    const batch = await pollBatch(created.id, (b) => b.status === 'CANCELLED');
    const ran = batch.request_counts.completed;
    expect(ran).toBeGreaterThanOrEqual(2);
    expect(ran).toBeLessThan(10);

    const r = await keep({
      workflowId: uniqueId('wf'),
      batchId: batch.id,
      ...(batch.output_file_id ? { outputFileId: batch.output_file_id } : {}),
      ...(batch.error_file_id ? { errorFileId: batch.error_file_id } : {}),
    });

    expect(r.error).toBeUndefined();
    const { output, errors, summary } = r.value!;
    expect(output?.lines).toBe(ran);
    expect(errors?.lines).toBe(10 - ran);
    expect(summary).toMatchObject({
      succeeded: ran,
      failed: 0,
      notRun: 10 - ran,
      byErrorCode: { batch_cancelled: 10 - ran },
      sampleFailures: [],
    });
    expect(readLines(summary.perRequestUri)).toHaveLength(10);
  });

  it('leaves a side out when its file id is absent', async () => {
    const created = await createBatch([chat('only', 'fine')], 50);
    const batch = await pollBatch(created.id, (b) => b.status === 'COMPLETED');
    expect(batch.error_file_id ?? '').toBe(''); // the emulator answers "" for a file it did not write

    const r = await keep({ workflowId: uniqueId('wf'), batchId: batch.id, outputFileId: batch.output_file_id! });

    expect(r.error).toBeUndefined();
    expect(Object.keys(r.value!)).toEqual(['output', 'summary']);
    expect(r.value!.summary).toMatchObject({ succeeded: 1, failed: 0, notRun: 0, byErrorCode: {} });
  });
});
