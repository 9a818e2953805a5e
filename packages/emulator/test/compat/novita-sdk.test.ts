// The platform vendor's own JavaScript SDK (novita-sdk, pinned) against the emulator over HTTP: a
// client nobody here wrote. It sends `Authorization: <key>` without `Bearer`, uses axios, posts JSON
// to `/v3/async/<model>` and reads `/v3/async/task-result?task_id=`; errors become a NovitaError with
// the answer's status, reason and metadata. Its model helpers name models the emulator does not serve,
// so the submit goes through the SDK's own public request helper (`httpFetch`), as a user of a newer
// model would.
import { NovitaError, NovitaSDK, TaskStatus, type ProgressResponse } from 'novita-sdk';
import { DEV_API_KEY } from '../../src/config';
import { emulatorForFile, sleep, T2V } from '../support';

const emu = emulatorForFile();

function sdk(key = DEV_API_KEY): NovitaSDK {
  const client = new NovitaSDK(key);
  client.setBaseUrl(emu.url);
  return client;
}

/** The SDK's error, or a failure if the call succeeded. */
async function novitaError(call: Promise<unknown>): Promise<NovitaError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof NovitaError) return err;
    throw err;
  }
  throw new Error('the call succeeded; a NovitaError was expected');
}

/** What a user's loop does: poll `progress()` until the task ends, trying again on 429 and 5xx. */
async function followTask(
  client: NovitaSDK,
  taskId: string,
): Promise<{ final: ProgressResponse; seen: Set<string>; retried: NovitaError[] }> {
  const seen = new Set<string>();
  const retried: NovitaError[] = [];
  for (let i = 0; i < 400; i++) {
    try {
      const res = await client.progress({ task_id: taskId });
      seen.add(res.task.status);
      if (res.task.status === TaskStatus.SUCCEED || res.task.status === TaskStatus.FAILED) {
        return { final: res, seen, retried };
      }
    } catch (err) {
      if (!(err instanceof NovitaError) || !(err.code === 429 || err.code >= 500)) throw err;
      retried.push(err);
    }
    await sleep(25);
  }
  throw new Error(`task ${taskId} did not end`);
}

const submit = (client: NovitaSDK, prompt: string): Promise<{ task_id: string }> =>
  client.httpFetch({ url: T2V, method: 'POST', data: { prompt, duration: 5 } }) as Promise<{ task_id: string }>;

describe('novita-sdk 3.1.3 against the emulator', () => {
  it('submits, follows progress to success under 5xx and 429 faults, and downloads the output', async () => {
    await emu.admin('PUT', '/faults', {
      routes: {
        // The first polls meet two 503s, then (the key's entry used up) a 429 under the alias.
        taskResult: { errorRate5xx: 1, status5xx: 503, count: 2 },
        getTaskResult: { rate429: 1, retryAfterSeconds: 0, count: 1 },
        submitTextToVideo: { errorRate5xx: 1, status5xx: 502, count: 1 },
      },
    });
    const client = sdk();
    // The first submit meets the counted 502: the SDK reports it as a NovitaError, as the platform's would be.
    const refused = await novitaError(submit(client, 'a red fox in the snow'));
    expect(refused.code).toBe(502);
    expect(refused.reason).toBe('BAD_GATEWAY');
    expect(refused.metadata).toEqual(expect.objectContaining({ trace_id: expect.stringMatching(/^[0-9a-f]{32}$/) }));

    const { task_id } = await submit(client, 'a red fox in the snow [emulator:duration=200000]');
    expect(task_id).toEqual(expect.any(String));
    const { final, seen, retried } = await followTask(client, task_id);

    expect(final.task.status).toBe(TaskStatus.SUCCEED);
    expect(final.task.progress_percent).toBe(100);
    expect(seen.has(TaskStatus.PROCESSING)).toBe(true);
    expect(retried.map((e) => `${e.code} ${e.reason}`)).toEqual([
      '503 SERVICE_UNAVAILABLE',
      '503 SERVICE_UNAVAILABLE',
      '429 RATE_LIMIT_EXCEEDED',
    ]);

    const video = final.videos?.[0];
    expect(video).toEqual(
      expect.objectContaining({ video_type: 'mp4', video_url_ttl: expect.stringMatching(/^\d+$/) }),
    );
    const file = await fetch(video!.video_url);
    expect(file.status).toBe(200);
    const bytes = Buffer.from(await file.arrayBuffer());
    // ISO-BMFF: the first box is `ftyp`.
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');

    const counters = await emu.admin('GET', '/counters');
    expect(counters.faultsInjected.total).toBe(4);
  });

  it('reports a failed task with its reason', async () => {
    const client = sdk();
    const { task_id } = await submit(client, 'a lighthouse [emulator:fail=ILLEGAL_PROMPT] [emulator:duration=1000]');
    const { final } = await followTask(client, task_id);
    expect(final.task.status).toBe(TaskStatus.FAILED);
    expect(final.task.reason).toBe('ILLEGAL_PROMPT');
    expect(final.videos ?? []).toEqual([]);
  });

  it('parses 404 TASK_NOT_FOUND', async () => {
    const e = await novitaError(sdk().progress({ task_id: 'task-that-does-not-exist' }));
    expect(e.code).toBe(404);
    expect(e.reason).toBe('TASK_NOT_FOUND');
    // The SDK adds the task id to the metadata it parsed from the platform's error body.
    expect(e.metadata).toEqual(
      expect.objectContaining({ task_id: 'task-that-does-not-exist', trace_id: expect.any(String) }),
    );
  });

  it('parses 401 for an unknown key, without the key in the message', async () => {
    const key = 'sk-unknown-key-0123456789';
    const e = await novitaError(sdk(key).progress({ task_id: 'any' }));
    expect(e.code).toBe(401);
    expect(e.reason).toBe('INVALID_API_KEY');
    expect(e.msg).not.toContain(key);
  });

  it('parses 400 INVALID_REQUEST_BODY naming the field', async () => {
    const e = await novitaError(
      sdk().httpFetch({ url: T2V, method: 'POST', data: { prompt: 'x', duration: 99 } }) as Promise<unknown>,
    );
    expect(e.code).toBe(400);
    expect(e.reason).toBe('INVALID_REQUEST_BODY');
    expect(e.msg).toContain('duration');
  });
});
