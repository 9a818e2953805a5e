// The starter's mediaGeneration support without a workflow: the progress line, the summary of kept
// outputs, the flag → input mapping, and the watcher's ticker with a fake handle.
import type { MediaProgress } from '@platform-ops/client';
import { buildProgram } from '../../src/starter';
import { CliError, ExitCode } from '../../src/cli/command';
import { formatSeconds, renderBar, waitWithProgress, type WatchedWorkflow } from '../../src/cli/progress';
import type { InputFlags } from '../../src/cli/flags';
import { buildWorkflowInput, watchOf } from '../../src/starter/workflow-inputs';
import { renderMediaProgress, renderMediaSummary } from '../../src/operations/mediaGeneration/starter';

// `up` loads the whole worker (activities, bundler): not needed to parse a `start` command line.
jest.mock('../../src/starter/commands/up', () => ({ upCommand: jest.fn() }));

const NOW = Date.parse('2026-01-01T00:00:10.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();
const progress = (patch: Partial<MediaProgress> = {}): MediaProgress => ({
  generation: 1,
  polls: 0,
  submissions: 1,
  ...patch,
});

describe('renderMediaProgress', () => {
  it('shows status, bar, percent, eta, polls, next poll and task', () => {
    const line = renderMediaProgress(
      progress({
        status: 'PROCESSING',
        progressPercent: 52,
        eta: 12,
        polls: 4,
        observedAt: at(0),
        nextPollAt: at(3000),
        taskId: 'abc',
      }),
      NOW,
    );
    expect(line).toBe('PROCESSING  [##########----------]   52%  eta 12s  polls 4  next poll in 3s  task abc');
  });

  it('counts the eta and the next poll down from the poll that reported them', () => {
    const p = progress({ status: 'PROCESSING', eta: 12, observedAt: at(0), nextPollAt: at(3000) });
    expect(renderMediaProgress(p, NOW + 5000)).toContain('eta 7s');
    expect(renderMediaProgress(p, NOW + 5000)).toContain('polling now');
    expect(renderMediaProgress(p, NOW + 60_000)).toContain('eta 0s');
    expect(renderMediaProgress(progress({ status: 'QUEUED', eta: 150 }), NOW)).toContain('eta 2m30s');
  });

  it.each([
    [0, 20, '[--------------------]    0%'],
    [100, 20, '[####################]  100%'],
    [99.6, 10, '[#########-]   99%'],
    [50, 4, '[##--]   50%'],
    [150, 4, '[####]  100%'],
    [-5, 4, '[----]    0%'],
    [33, 0, ' 33%'],
  ])('draws %p%% over %p cells as %p', (percent, width, expected) => {
    expect(renderBar(percent, width)).toBe(expected);
  });

  it('honours the width and leaves out what is not known yet', () => {
    expect(renderMediaProgress(progress({ status: 'QUEUED', progressPercent: 25 }), NOW, 8)).toBe(
      'QUEUED  [##------]   25%  polls 0',
    );
    expect(renderMediaProgress(progress({ status: 'SUBMITTING', submissions: 0 }), NOW)).toBe(
      'SUBMITTING  [--------------------]    ?%  polls 0',
    );
    expect(renderMediaProgress({ generation: 1, polls: 0, submissions: 0 }, NOW, 0)).toBe('STARTING    ?%  polls 0');
  });

  it('mentions regenerations and repeated submits', () => {
    const line = renderMediaProgress(progress({ status: 'REGENERATING', generation: 2, submissions: 3 }), NOW);
    expect(line).toContain('generation 2  submissions 3');
  });

  it.each(['GENERATED', 'KEEPING_OUTPUTS', 'SUCCEEDED'])('fills the bar and drops the countdowns once %s', (status) => {
    const line = renderMediaProgress(
      progress({ status, eta: 5, observedAt: at(0), nextPollAt: at(3000), polls: 9, taskId: 't1' }),
      NOW,
    );
    expect(line).toBe(`${status}  [####################]  100%  polls 9  task t1`);
  });

  it('keeps the last progress but no countdowns once FAILED', () => {
    const line = renderMediaProgress(
      progress({ status: 'FAILED', progressPercent: 40, eta: 5, observedAt: at(0), nextPollAt: at(3000), polls: 2 }),
      NOW,
    );
    expect(line).toBe('FAILED  [########------------]   40%  polls 2');
  });

  it('formats durations compactly', () => {
    expect([0, 0.2, 59, 60, 65, 3599, 3600, 7620].map(formatSeconds)).toEqual([
      '0s',
      '1s',
      '59s',
      '1m00s',
      '1m05s',
      '59m59s',
      '1h00m',
      '2h07m',
    ]);
  });
});

describe('renderMediaSummary', () => {
  const result = {
    operation: 'image-to-video',
    taskId: 't1',
    outputs: [
      {
        kind: 'video',
        originalUrl: 'https://cdn.example/v.mp4',
        kept: { uri: 'file:///store/t1/0.mp4', bytes: 1234, sha256: '0123456789abcdef'.repeat(4) },
      },
    ],
    outputUrls: [],
    timings: { submittedAt: at(0), doneAt: at(1000) },
    polls: 3,
    generations: [],
    submissions: [],
    possibleDuplicates: 0,
    cost: { nsfwDetection: false, images: 0, nsfwSurcharge: 0, nsfwSurchargeUsd: '0.0000', note: '' },
  };

  it('lists the kept outputs with their size and hash prefix', () => {
    expect(renderMediaSummary(result)).toEqual([
      'Outputs kept:',
      '  video  file:///store/t1/0.mp4  (1234 bytes, sha256 0123456789ab)',
    ]);
  });

  it('lists URLs that were not kept, and says when there is nothing', () => {
    const urls = { ...result, outputs: [], outputUrls: [{ kind: 'video', url: 'https://cdn/v.mp4', ttlSeconds: 60 }] };
    expect(renderMediaSummary(urls)).toEqual([
      'Outputs not kept (the platform URLs expire):',
      '  video  https://cdn/v.mp4  (ttl 60 s)',
    ]);
    expect(renderMediaSummary({ ...result, outputs: [] })).toEqual(['No outputs.']);
    expect(renderMediaSummary({ something: 'else' })).toEqual([]);
  });
});

describe('mediaGeneration flags', () => {
  const build = (flags: InputFlags) => buildWorkflowInput('mediaGeneration', flags);
  const refusal = (flags: InputFlags): CliError => {
    try {
      build(flags);
    } catch (err) {
      if (err instanceof CliError) return err;
      throw err;
    }
    throw new Error('expected the flags to be refused');
  };

  it('builds an image-to-video input when a start image is given', () => {
    expect(
      build({
        prompt: 'a cat walks',
        image: ['https://img.example/start.png'],
        endImage: 'https://img.example/end.jpg',
        duration: '5',
        sound: true,
        negativePrompt: 'blur',
        cfgScale: '0.5',
        nsfwDetection: true,
        onAmbiguous: 'resubmit',
        memberId: 'member-1',
      }),
    ).toEqual({
      operation: 'image-to-video',
      request: {
        image: 'https://img.example/start.png',
        end_image: 'https://img.example/end.jpg',
        prompt: 'a cat walks',
        duration: 5,
        sound: true,
        negative_prompt: 'blur',
        cfg_scale: 0.5,
        extra: { enable_nsfw_detection: true },
      },
      submission: { onAmbiguous: 'resubmit' },
      memberId: 'member-1',
    });
  });

  it('builds a text-to-video input without an image, leaving defaults to the workflow', () => {
    expect(build({ prompt: 'a sunrise', aspectRatio: '9:16', duration: '10' })).toEqual({
      operation: 'text-to-video',
      request: { prompt: 'a sunrise', aspect_ratio: '9:16', duration: 10 },
    });
  });

  it('reads every flag from the command line', async () => {
    // The real `start` command, with its action swapped for one that only keeps the parsed options.
    const program = buildProgram();
    let seen: InputFlags | undefined;
    program.commands
      .find((c) => c.name() === 'start')!
      .action((_type: string, opts: InputFlags) => {
        seen = opts;
      });
    await program.parseAsync(
      [
        ...['start', 'mediaGeneration', '--operation', 'image-to-video', '--prompt', 'p', '--image', 'https://a/s.png'],
        ...['--end-image', 'https://a/e.png', '--duration', '5', '--sound', '--negative-prompt', 'n'],
        ...['--cfg-scale', '0.3', '--nsfw-detection', '--on-ambiguous', 'fail', '--member-id', 'm'],
      ],
      { from: 'user' },
    );
    expect(build(seen!)).toEqual({
      operation: 'image-to-video',
      request: {
        image: 'https://a/s.png',
        end_image: 'https://a/e.png',
        prompt: 'p',
        duration: 5,
        sound: true,
        negative_prompt: 'n',
        cfg_scale: 0.3,
        extra: { enable_nsfw_detection: true },
      },
      submission: { onAmbiguous: 'fail' },
      memberId: 'm',
    });
  });

  it('refuses two start images', () => {
    const err = refusal({ prompt: 'x', image: ['https://a/1.png', 'https://a/2.png'] });
    expect(err.exitCode).toBe(ExitCode.Usage);
    expect(err.message).toBe(
      'mediaGeneration takes one start image, but --image was given 2 times; use --end-image for the last frame.',
    );
  });

  it.each([
    [{ prompt: 'x', duration: '99' }, /^Invalid mediaGeneration input: request\.duration: must be at most 15\./],
    [{ prompt: 'x', duration: 'abc' }, /^--duration \(request\.duration\) must be a number, not "abc"\.$/],
    [{ prompt: 'x', duration: '4.5' }, /request\.duration: must be an integer/],
    [{ prompt: 'x', aspectRatio: '4:3' }, /request\.aspect_ratio: must be one of "16:9", "9:16", "1:1"/],
    [{ prompt: 'x', image: ['https://a/1.png'], aspectRatio: '1:1' }, /request\.aspect_ratio: is not a known field/],
    [{ prompt: 'x', operation: 'image-to-video' }, /request\.image: is required/],
    [{ prompt: 'x', operation: 'video' }, /^--operation must be image-to-video or text-to-video, not "video"\.$/],
    [{ prompt: 'x', onAmbiguous: 'maybe' }, /submission\.onAmbiguous: must be one of "fail", "resubmit"/],
    [{ prompt: 'x', cfgScale: '2' }, /request\.cfg_scale: must be at most 1/],
  ])('refuses %j with a sentence naming the field', (flags, message) => {
    const err = refusal(flags);
    expect(err.exitCode).toBe(ExitCode.Usage);
    expect(err.message).toMatch(message);
  });
});

describe("waitWithProgress, with mediaGeneration's view", () => {
  const sink = (isTTY: boolean) => {
    const writes: string[] = [];
    return { writes, stream: { isTTY, columns: 40, write: (text: string) => writes.push(text) } };
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** A handle whose result arrives after `ms`; the first query fails as it does before a worker polls. */
  function fakeWorkflow(ms: number, outcome: 'ok' | 'fail' = 'ok') {
    let queries = 0;
    const workflow: WatchedWorkflow<unknown> = {
      query: () => {
        queries++;
        if (queries === 1) return Promise.reject(new Error('no poller seen for task queue recently'));
        return Promise.resolve(progress({ status: queries < 4 ? 'QUEUED' : 'PROCESSING', polls: queries }));
      },
      result: () =>
        sleep(ms).then(() => {
          if (outcome === 'fail') throw new Error('task failed');
          return { done: true };
        }),
    };
    return { workflow, queries: () => queries };
  }

  it('redraws one line in place on a terminal, then ends it and stops querying', async () => {
    const { writes, stream } = sink(true);
    const fake = fakeWorkflow(120);
    await expect(
      waitWithProgress(fake.workflow, watchOf('mediaGeneration')!, { stream, intervalMs: 10 }),
    ).resolves.toEqual({ done: true });
    const queriesAtEnd = fake.queries();
    expect(queriesAtEnd).toBeGreaterThan(3);
    expect(writes.at(-1)).toBe('\n');
    for (const w of writes.slice(0, -1)) {
      expect(w.startsWith('\r') && w.endsWith('\x1b[K')).toBe(true);
      expect(w.length).toBeLessThanOrEqual(1 + 39 + 3); // cut to the terminal's width
    }
    await sleep(50);
    expect(fake.queries()).toBe(queriesAtEnd);
  });

  it('writes a line per change elsewhere, and passes a failure through', async () => {
    const { writes, stream } = sink(false);
    await expect(
      waitWithProgress(fakeWorkflow(120, 'fail').workflow, watchOf('mediaGeneration')!, { stream, intervalMs: 10 }),
    ).rejects.toThrow('task failed');
    expect(writes.map((w) => w.split('  ')[0])).toEqual(['QUEUED', 'PROCESSING']);
    expect(writes.every((w) => w.endsWith('\n'))).toBe(true);
  });
});
