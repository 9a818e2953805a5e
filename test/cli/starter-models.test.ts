// The starter and the model registry: `models` lists it, `start mediaGeneration --model NAME --body
// request.json --wait` runs an async model to its kept outputs, and a bad model or body is refused
// (exit 2) before anything starts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowType } from '@platform-ops/client';
import { runStarter } from '../helpers/processes';
import { withWorker } from '../helpers/temporal';

const starter = runStarter;

const bodyFile = (body: unknown) => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'starter-models-')), 'request.json');
  writeFileSync(file, JSON.stringify(body));
  return file;
};

describe('starter and the model registry', () => {
  it('`models` lists the registry: paths, outputs, body checks, prices, quotas, examples marked', async () => {
    const run = await starter(['models']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/qwen-image \(example\)\s+qwen-image-txt2img\s+image\s+JSON Schema\s+200\s+qwen-image/);
    expect(run.stdout).toMatch(/vendor-v3\.0-std-i2v\s+vendor-v3\.0-std-i2v\s+video\s+built-in image-to-video\s+-/);
    expect(run.stdout).toContain('Other models starting with "custom-" are sent as they are');
  });

  it('runs a model from --model and --body, and prints where the outputs were kept', () =>
    withWorker('starter-models', async ({ taskQueue }) => {
      const body = bodyFile({ text: 'Good morning [emulator:duration=500]' });
      const run = await starter(
        ['start', WorkflowType.mediaGeneration, '--model', 'speech-hd', '--body', body, '--wait'],
        taskQueue,
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/"operation": "async"/);
      expect(run.stdout).toMatch(/ {2}audio {2}file:\/\/\S+\.wav/);
    }));

  it('refuses an unknown model and a body the schema refuses, before anything starts (exit 2)', async () => {
    const unknown = await starter(['start', WorkflowType.mediaGeneration, '--model', 'nope', '--prompt', 'x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('model: "nope" is not in the model registry');
    const bad = await starter([
      'start',
      WorkflowType.mediaGeneration,
      '--model',
      'qwen-image',
      '--body',
      bodyFile({ prompt: 'x', steps: 3 }),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('request.steps: is not a known field');
    const noBody = await starter(['start', WorkflowType.mediaGeneration, '--model', 'qwen-image']);
    expect(noBody.code).toBe(2);
    expect(noBody.stderr).toContain('--model qwen-image needs its body');
  });
});
