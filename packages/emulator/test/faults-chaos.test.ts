// The fault kinds the fault suite (npm run chaos) needs: output downloads cut off half-way, `paid` (every
// call that commits money) and `outputFile` as fault keys, and the paid-call counter that shows a call
// the client gave up on but the platform carried out.
import { request } from 'node:http';
import { T2V, TASK_RESULT, emulatorForFile } from './support';

const emu = emulatorForFile();

const faults = (routes: Record<string, Record<string, number>>) => emu.admin('PUT', '/faults', { routes });

/** A finished task's video URL (the task runs 0 emulated ms). */
async function videoUrl(prompt: string): Promise<string> {
  const submitted = await emu.call('POST', T2V, { json: { prompt: `${prompt} [emulator:duration=0]`, duration: 5 } });
  await emu.advance(1_000);
  const res = await emu.call('GET', TASK_RESULT, { query: { task_id: submitted.json.task_id } });
  return res.json.videos[0].video_url as string;
}

/** The announced length and the bytes that arrived before the connection ended, over plain http. */
function download(url: string): Promise<{ status: number; announced: number; received: number; aborted: boolean }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let received = 0;
      let aborted = false;
      res.on('data', (chunk: Buffer) => (received += chunk.length));
      res.on('aborted', () => (aborted = true));
      res.on('error', () => (aborted = true));
      res.on('close', () =>
        resolve({ status: res.statusCode ?? 0, announced: Number(res.headers['content-length']), received, aborted }),
      );
    })
      .on('error', reject)
      .end();
  });
}

describe('fault suite faults', () => {
  it('cuts an output download half-way: the full length announced, half the bytes, then the connection ends', async () => {
    const url = await videoUrl('a cut download');
    const whole = await download(url);
    expect(whole).toMatchObject({ status: 200, aborted: false });
    expect(whole.received).toBe(whole.announced);

    await faults({ outputFile: { cutRate: 1 } });
    const cut = await download(url);
    expect(cut.status).toBe(200);
    expect(cut.announced).toBe(whole.announced);
    expect(cut.received).toBe(Math.floor(whole.announced / 2));
    expect(cut.aborted).toBe(true);
    // fetch, as the worker downloads, fails rather than returning the half.
    await expect(fetch(url).then((r) => r.arrayBuffer())).rejects.toThrow();
    expect((await emu.admin('GET', '/counters')).faultsInjected.byKind).toEqual({ cut: 2 });
  });

  it('leaves output files out of `*`: an API outage names outputFile to take downloads down too', async () => {
    const url = await videoUrl('an outage');
    await faults({ '*': { errorRate5xx: 1, status5xx: 503 } });
    expect((await fetch(url)).status).toBe(200);
    expect((await emu.call('GET', TASK_RESULT, { query: { task_id: 'x' } })).status).toBe(503);
    await faults({ '*': { errorRate5xx: 1, status5xx: 503 }, outputFile: { errorRate5xx: 1, status5xx: 503 } });
    expect((await fetch(url)).status).toBe(503);
  });

  it('`paid` reaches the calls that commit money and no others', async () => {
    await faults({ paid: { errorRate5xx: 1, status5xx: 503 } });
    expect((await emu.call('POST', T2V, { json: { prompt: 'paid', duration: 5 } })).status).toBe(503);
    const renew = await emu.call('PUT', '/gpus/v2/instances/inst-demo-1/renew', { json: { months: 1 } });
    expect(renew.status).toBe(503);
    expect((await emu.call('GET', TASK_RESULT, { query: { task_id: 'x' } })).status).toBe(404);
    const instance = await emu.call('GET', '/gpu-instance/openapi/v1/gpu/instance', {
      query: { instanceId: 'inst-demo-1' },
    });
    expect(instance.status).toBe(200);
  });

  it('counts each paid call carried out under its subject, the one the client gave up on included', async () => {
    await emu.call('PUT', '/gpus/v2/instances/inst-demo-1/renew', { json: { months: 1 } });
    await emu.call('POST', T2V, { json: { prompt: 'counted once', duration: 5 } });
    await faults({ paid: { latencyMs: 300 } });
    // The client leaves after 50 ms; the platform still renews, and then again when the client retries.
    await expect(
      emu.call('PUT', '/gpus/v2/instances/inst-demo-2/renew', { json: { months: 1 }, signal: AbortSignal.timeout(50) }),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
    await emu.call('PUT', '/gpus/v2/instances/inst-demo-2/renew', { json: { months: 1 } });
    // A refused call commits nothing and is not counted.
    await emu.call('PUT', '/gpus/v2/instances/inst-payg-1/renew', { json: { months: 1 } });
    const before = Date.now();
    await new Promise((r) => setTimeout(r, 400));
    const { paid } = await emu.admin('GET', '/counters');
    expect(paid).toEqual({
      total: 4,
      byRoute: {
        renewInstance: { 'inst-demo-1': 1, 'inst-demo-2': 2 },
        submitTextToVideo: { 'counted once': 1 },
      },
      // Only a subject carried out more than once shows when each answer was made, in order.
      repeatedAt: { renewInstance: { 'inst-demo-2': [expect.any(Number), expect.any(Number)] }, submitTextToVideo: {} },
    });
    const [first, second] = paid.repeatedAt.renewInstance['inst-demo-2'] as number[];
    expect(first).toBeLessThanOrEqual(second);
    expect(second).toBeLessThanOrEqual(before + 400);
    expect(first).toBeGreaterThan(before - 10_000);
  });
});
