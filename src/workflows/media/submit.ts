// Submitting one generation at most once. Each attempt is its own activity run (no automatic
// retries): a refused attempt is sent again after a backoff, an ambiguous one (it may have created a
// paid task) follows the input's `submission.onAmbiguous` policy. Every attempt is recorded.
import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  sleep,
  TimeoutFailure,
} from '@temporalio/workflow';
import { FailureType } from '../../api/failures';
import type { ParsedMediaGenerationInput, SubmissionAttempt } from '../../api/schemas/media';
import type { Activities, SubmitFailureDetails, SubmitMediaTaskInput } from '../../activities';
import type { SubmitMediaTaskResult } from '../../activities/media';
import { isoTime } from '../../shared/time';

const { submitMediaTask } = proxyActivities<Activities>({
  // The client's own call timeout is shorter; this catches a worker lost mid-call.
  startToCloseTimeout: '2m',
  retry: { maximumAttempts: 1 },
});

interface AttemptFailure {
  outcome: 'refused' | 'ambiguous' | 'rejected';
  type: string;
  message: string;
  details?: SubmitFailureDetails;
  cause: unknown;
}

function describeFailure(err: unknown): AttemptFailure {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as SubmitFailureDetails | undefined;
    const outcome =
      cause.type === FailureType.AmbiguousSubmission
        ? 'ambiguous'
        : cause.type === FailureType.RateLimited || cause.type === FailureType.PlatformUnavailable
          ? 'refused'
          : cause.nonRetryable
            ? 'rejected'
            : 'ambiguous'; // an unexpected error inside the activity: it may have sent the request
    return { outcome, type: cause.type ?? 'Error', message: cause.message, details, cause };
  }
  if (cause instanceof TimeoutFailure) {
    // The worker running the attempt was lost: it may have sent the request before it went.
    return { outcome: 'ambiguous', type: 'ActivityTimeout', message: 'the submit attempt timed out', cause };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return { outcome: 'ambiguous', type: 'Unknown', message, cause };
}

export async function submitGeneration(
  input: ParsedMediaGenerationInput,
  generation: number,
  attempts: SubmissionAttempt[],
  onAttempt: () => void,
): Promise<SubmitMediaTaskResult> {
  const { submission } = input;
  let mayExistAlready = false;
  for (let attempt = 1; ; attempt++) {
    const possibleDuplicate = mayExistAlready || undefined;
    try {
      // operation and request were parsed together, so they match.
      const res = await submitMediaTask({
        operation: input.operation,
        request: input.request,
        generation,
        attempt,
        // The activity reads the accepted task once: the wait starts from its status and eta.
        polling: input.polling,
      } as SubmitMediaTaskInput);
      attempts.push({
        generation,
        attempt,
        at: isoTime(res.submittedAt),
        outcome: 'accepted',
        taskId: res.taskId,
        possibleDuplicate,
      });
      onAttempt();
      return res;
    } catch (err) {
      if (isCancellation(err)) throw err;
      const f = describeFailure(err);
      attempts.push({
        generation,
        attempt,
        at: f.details ? isoTime(f.details.at) : undefined,
        outcome: f.outcome,
        error: { type: f.type, message: f.message },
        possibleDuplicate,
      });
      onAttempt();
      if (f.outcome === 'rejected') throw f.cause;
      if (f.outcome === 'ambiguous') {
        if (submission.onAmbiguous === 'fail') {
          throw ApplicationFailure.create({
            type: FailureType.AmbiguousSubmission,
            nonRetryable: true,
            message:
              `Submit attempt ${attempt} of generation ${generation} may have created a task on the platform ` +
              `but returned no task id (${f.message}). It was not sent again, so as not to pay twice ` +
              `(submission.onAmbiguous is "fail"); check the platform's bills before starting again.`,
            details: [{ attempts }],
          });
        }
        mayExistAlready = true;
      }
      if (attempt >= submission.maxAttempts) {
        throw ApplicationFailure.create({
          type: f.type,
          nonRetryable: true,
          message: `Gave up submitting generation ${generation} after ${attempt} attempts; the last: ${f.message}`,
          details: [{ attempts }],
        });
      }
      const backoff = Math.min(submission.backoffMaxMs, submission.backoffInitialMs * 2 ** (attempt - 1));
      await sleep(Math.max(backoff, f.details?.retryAfterMs ?? 0));
    }
  }
}
