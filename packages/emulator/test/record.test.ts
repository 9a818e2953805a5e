// Recording (`--record file`): every request and answer as one JSON line, credentials redacted, over
// real HTTP, refusals and faults included.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RecordedExchange } from '../src/record';
import { startEmu, T2V, TASK_RESULT } from './support';

it('records each exchange as a JSON line with the Authorization header redacted, and no key anywhere', async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'record-')), 'exchanges.jsonl');
  const key = 'emu-recorded-key-7f3a9c11';
  const adminToken = 'admin-token-5e1d0b77';
  const emu = await startEmu({ apiKeys: [key], recordFile: file, adminToken });
  try {
    const submit = await emu.call('POST', T2V, { key, json: { prompt: 'a heron', duration: 5 } });
    expect(submit.status).toBe(200);
    // The SDK's bare form of the header, and a wrong key.
    const poll = await fetch(`${emu.url}${TASK_RESULT}?task_id=${submit.json.task_id}`, {
      headers: { authorization: key },
    });
    expect(poll.status).toBe(200);
    expect((await emu.call('GET', TASK_RESULT, { key: 'sk-wrong-key-12345678', query: { task_id: 'x' } })).status).toBe(
      401,
    );
    expect(
      (
        await fetch(`${emu.url}/_emulator/faults`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ routes: { quotaList: { resetRate: 1 } } }),
        })
      ).status,
    ).toBe(200);
    await expect(emu.call('GET', '/openapi/v1/user/quota/list', { key })).rejects.toThrow();
  } finally {
    await emu.close();
  }

  const text = readFileSync(file, 'utf8');
  for (const secret of [key, adminToken, 'sk-wrong-key-12345678']) expect(text).not.toContain(secret);
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RecordedExchange)
    .sort((a, b) => a.seq - b.seq);
  expect(lines.map((l) => [l.method, l.route, l.response.status])).toEqual([
    ['POST', 'submitTextToVideo', 200],
    ['GET', 'taskResult', 200],
    ['GET', 'taskResult', 401],
    ['PUT', 'admin', 200],
    ['GET', 'quotaList', null],
  ]);
  for (const l of lines) expect(l.request.headers.authorization).toBe('[REDACTED]');
  expect(lines[0].request.body).toEqual({ prompt: 'a heron', duration: 5 });
  expect(lines[0].response).toMatchObject({ complete: true, body: { task_id: expect.any(String) } });
  expect(lines[2].response.body).toMatchObject({ reason: 'INVALID_API_KEY' });
  expect(lines[4].response.complete).toBe(false);
  for (const l of lines) {
    expect(Date.parse(l.at)).not.toBeNaN();
    expect(Date.parse(l.emulatedAt)).not.toBeNaN();
  }
});
