// The fault suite's rules: which failure a fault justifies, what counts as a duplicate paid call or a
// leaked reservation, and that each target fails when its figure misses.
import {
  chaosChecks,
  duplicatePaid,
  tally,
  type ChaosInput,
  type FaultWindow,
  type Outcome,
} from '../../bench/chaos/tally';
import { failureTypeOf } from '../../bench/chaos/outcomes';
import { ApplicationFailure, ChildWorkflowFailure, RetryState } from '@temporalio/common';

const kill: FaultWindow = { name: 'worker-sigkill', from: 100, to: 200, justifies: ['AmbiguousSubmission'] };
const outage: FaultWindow = { name: 'outage', from: 1_000, to: 2_000, justifies: [] };

const outcome = (o: Partial<Outcome> & Pick<Outcome, 'workflowId'>): Outcome => ({
  type: 'mediaGeneration',
  wave: 'outage',
  status: 'COMPLETED',
  startedAt: 1_000,
  closedAt: 1_500,
  ...o,
});

const input = (o: Partial<ChaosInput> = {}): ChaosInput => ({
  outcomes: [],
  faults: [kill, outage],
  paid: { byRoute: {} },
  reservations: [],
  keyOccurrences: { histories: 0, 'worker.log': 0 },
  elapsedS: 600,
  ...o,
});

const targets = { minInFlight: 2, maxElapsedS: 1_200 };
const failing = (i: ChaosInput, types = ['mediaGeneration']) =>
  chaosChecks(tally(i), targets, types)
    .filter((c) => !c.ok)
    .map((c) => c.what);

describe('chaos tally', () => {
  it('justifies a failure only by a fault the workflow lived through', () => {
    const f = tally(
      input({
        outcomes: [
          // Open during the kill: an ambiguous submission is what a lost worker can leave.
          outcome({
            workflowId: 'a',
            status: 'FAILED',
            failureType: 'AmbiguousSubmission',
            startedAt: 50,
            closedAt: 150,
          }),
          // Started after the kill: nothing justifies it.
          outcome({
            workflowId: 'b',
            status: 'FAILED',
            failureType: 'AmbiguousSubmission',
            startedAt: 300,
            closedAt: 400,
          }),
          // An outage justifies nothing: a 503 is a refusal, safe to try again.
          outcome({ workflowId: 'c', status: 'FAILED', failureType: 'PlatformUnavailable' }),
          outcome({ workflowId: 'd' }),
        ],
      }),
    );
    expect(f.failed.byType).toEqual({ mediaGeneration: { AmbiguousSubmission: 2, PlatformUnavailable: 1 } });
    expect(f.failed.byWave).toEqual({ outage: { AmbiguousSubmission: 2, PlatformUnavailable: 1 } });
    expect(f.unjustifiedFailures.total).toBe(2);
    expect(f.unjustifiedFailures.examples).toEqual(['b: AmbiguousSubmission', 'c: PlatformUnavailable']);
    expect(f.completed.total).toBe(1);
    expect(f.faults.map((x) => [x.name, x.inFlight])).toEqual([
      ['worker-sigkill', 1],
      ['outage', 2],
    ]);
  });

  it("justifies a scenario's scripted failures up to their count, and one more is the service's", () => {
    const storm: FaultWindow = {
      name: 'scenario-storm',
      from: 3_000,
      to: 4_000,
      justifies: [],
      allowances: { GenerationFailed: 1 },
    };
    const refused = (workflowId: string) =>
      outcome({
        workflowId,
        wave: storm.name,
        status: 'FAILED',
        failureType: 'GenerationFailed',
        startedAt: 3_100,
        closedAt: 3_500,
      });
    const one = tally(input({ faults: [storm], outcomes: [refused('a')] }));
    expect(one.unjustifiedFailures.total).toBe(0);
    const two = tally(input({ faults: [storm], outcomes: [refused('a'), refused('b')] }));
    expect(two.unjustifiedFailures).toMatchObject({ total: 1, examples: ['b: GenerationFailed'] });
    // The allowance covers only its own type, and only for workflows open during the scenario.
    const other = outcome({
      workflowId: 'c',
      status: 'FAILED',
      failureType: 'BatchFailed',
      startedAt: 3_100,
      closedAt: 3_500,
    });
    const before = { ...refused('d'), startedAt: 1_000, closedAt: 2_000 };
    expect(tally(input({ faults: [storm], outcomes: [other, before] })).unjustifiedFailures.total).toBe(2);
  });

  it('counts every extra paid call of one subject as a duplicate', () => {
    expect(
      duplicatePaid({
        byRoute: { renewInstance: { i1: 1, i2: 3 }, submitTextToVideo: { 'chaos x': 2 }, createBatch: { b: 1 } },
      }),
    ).toEqual({
      total: 3,
      byRoute: { renewInstance: 2, submitTextToVideo: 1 },
      examples: ['renewInstance ×3: i2', 'submitTextToVideo ×2: chaos x'],
      justified: { total: 0, examples: [] },
    });
  });

  it('justifies one extra evaluation per question only when its earlier answer was made as the worker died', () => {
    const kill = {
      name: 'worker-sigkill',
      from: 10_000,
      to: 16_000,
      justifies: [],
      losesAnswersOf: ['decisionEvaluation'],
    };
    const repeated = (at: number[]) => ({
      byRoute: { decisionEvaluation: { q: at.length }, renewInstance: { i: 2 } },
      repeatedAt: { decisionEvaluation: { q: at }, renewInstance: { i: [9_900, 20_000] } },
    });
    // Answered 100 ms before the kill, asked again after it: justified; a renewal never is.
    expect(duplicatePaid(repeated([9_900, 40_000]), [kill])).toEqual({
      total: 1,
      byRoute: { renewInstance: 1 },
      examples: ['renewInstance ×2: i'],
      justified: { total: 1, examples: ['decisionEvaluation ×2 at worker-sigkill: q'] },
    });
    // Answered long before the kill (the worker had it), or only after it: a duplicate.
    expect(duplicatePaid(repeated([5_000, 40_000]), [kill]).byRoute).toEqual({
      decisionEvaluation: 1,
      renewInstance: 1,
    });
    expect(duplicatePaid(repeated([30_000, 40_000]), [kill]).byRoute).toEqual({
      decisionEvaluation: 1,
      renewInstance: 1,
    });
    // One loss justifies one extra call, not two; a fault that loses no answers justifies none.
    expect(duplicatePaid(repeated([9_900, 20_000, 40_000]), [kill]).byRoute).toEqual({
      decisionEvaluation: 1,
      renewInstance: 1,
    });
    const { losesAnswersOf: _none, ...restart } = kill;
    expect(duplicatePaid(repeated([9_900, 40_000]), [restart]).byRoute).toEqual({
      decisionEvaluation: 1,
      renewInstance: 1,
    });
  });

  it('calls a reservation leaked when its holder has ended, not while it still runs', () => {
    const f = tally(
      input({
        outcomes: [
          outcome({ workflowId: 'job-1' }),
          outcome({ workflowId: 'job-2', status: 'RUNNING', closedAt: undefined }),
        ],
        reservations: [
          { reservationId: 'r1', holderWorkflowId: 'job-1' },
          { reservationId: 'r2', holderWorkflowId: 'job-2' },
        ],
      }),
    );
    expect(f.leakedReservations).toEqual({ total: 1, examples: ['r1 held by job-1'] });
    expect(f.unfinished.total).toBe(1);
    // Which wave left it, and the step it was at.
    const left = tally(
      input({
        outcomes: [
          outcome({
            workflowId: 'b-1',
            wave: 'scenario-batch',
            status: 'RUNNING',
            closedAt: undefined,
            stillAt: 'WAITING',
          }),
          outcome({ workflowId: 'b-2', wave: 'scenario-batch', status: 'RUNNING', closedAt: undefined }),
        ],
      }),
    ).unfinished;
    expect(left).toMatchObject({ total: 2, byWave: { 'scenario-batch': 2 } });
    expect(left.examples).toEqual([
      'b-1 (wave scenario-batch, at WAITING)',
      'b-2 (wave scenario-batch, at no status yet)',
    ]);
    // A ledger that did not answer leaves the figure unmeasured, which fails its target.
    const unread = tally(input({ reservations: null }));
    expect(unread.leakedReservations.total).toBeNull();
    expect(chaosChecks(unread, targets, []).find((c) => c.what === 'leaked budget reservations')?.ok).toBe(false);
  });

  it('passes a clean run and fails each target its figure misses', () => {
    const clean = input({
      outcomes: [
        outcome({ workflowId: 'a', startedAt: 0, closedAt: 3_000 }),
        outcome({ workflowId: 'b', startedAt: 0, closedAt: 3_000 }),
      ],
    });
    expect(failing(clean)).toEqual([]);
    expect(failing({ ...clean, keyOccurrences: { histories: 0, 'worker.log': 1 } })).toEqual([
      'API-key occurrences in histories, logs and artifacts',
    ]);
    expect(failing({ ...clean, paid: { byRoute: { renewInstance: { i: 2 } } } })).toEqual([
      'duplicate paid submissions',
    ]);
    expect(failing({ ...clean, elapsedS: 1_201 })).toEqual(['suite duration']);
    // A type absent from a fault fails the in-flight target even when the count is met.
    expect(failing(clean, ['mediaGeneration', 'batchJob'])).toEqual([
      'workflows in flight during each fault (every type among them)',
    ]);
    expect(
      failing({ ...clean, outcomes: [...clean.outcomes, outcome({ workflowId: 'x', status: undefined })] }),
    ).toEqual(['starts refused']);
  });

  it("names a failure by the first application failure type among its causes (a child's reason)", () => {
    const child = new ChildWorkflowFailure(
      'default',
      { workflowId: 'c', runId: 'r' },
      'mediaGeneration',
      RetryState.NON_RETRYABLE_FAILURE,
      ApplicationFailure.nonRetryable('maybe paid', 'AmbiguousSubmission'),
    );
    const top = new Error('workflow failed', { cause: child });
    expect(failureTypeOf(top)).toBe('AmbiguousSubmission');
    expect(failureTypeOf(new Error('x'))).toBe('Error');
  });
});
