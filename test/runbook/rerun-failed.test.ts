// The runbook's `incident rerun-failed` (docs/operations.md#bulk-actions): one new run per failed run, with the
// failed run's type, input, task queue, memo and search attributes; nothing more when run again; a paid type
// only with --allow-paid. The runs fail on their input, so nothing is paid and every rerun fails too.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { decodeMapFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { SearchAttributes, WorkflowType } from '@platform-ops/client';
import { runStarter, waitFor } from '../helpers/processes';
import { uniqueId, withWorker } from '../helpers/temporal';

const startedAttributes = async (client: Client, workflowId: string) =>
  (await client.workflow.getHandle(workflowId).fetchHistory()).events![0].workflowExecutionStartedEventAttributes!;

const failed = (h: WorkflowHandle) =>
  h.result().then(
    () => {
      throw new Error(`${h.workflowId} completed`);
    },
    () => undefined,
  );

describe('runbook: rerun failed runs', () => {
  it('reruns each failed run once, as it was started, and a paid type only with --allow-paid', () =>
    withWorker('rerun', async ({ client, taskQueue }) => {
      // Two restarts that fail on their input (timeoutSeconds below 10), a decision that fails the same way.
      const restarts = await Promise.all(
        [1, 2].map(() =>
          client.workflow.start(WorkflowType.restartInstance, {
            taskQueue,
            workflowId: uniqueId('rerun-restart'),
            args: [{ instanceId: 'inst-demo-1', timeoutSeconds: 5 }],
            memo: { note: 'kept' },
            typedSearchAttributes: [{ key: SearchAttributes.memberId, value: 'member-rerun' }],
          }),
        ),
      );
      const decision = await client.workflow.start(WorkflowType.evaluateDecision, {
        taskQueue,
        workflowId: uniqueId('rerun-decision'),
        args: [{ state: 'a caption', questions: [] }],
      });
      // A completed run of a paid type: not failed, so neither rerun nor refused.
      const completed = await client.workflow.start(WorkflowType.evaluateDecision, {
        taskQueue,
        workflowId: uniqueId('rerun-completed'),
        args: [{ state: 'a caption', questions: [{ kind: 'yes_no', question: 'Is it safe for work?' }] }],
      });
      await Promise.all([...restarts, decision].map(failed));
      await completed.result();
      const count = async (q: string) => (await client.workflow.count(`TaskQueue = '${taskQueue}' ${q}`)).count;
      await waitFor(async () => (await count("AND ExecutionStatus = 'Failed'")) === 3, 10_000, 'visibility');

      const query = ['incident', 'rerun-failed', '--query', `TaskQueue = '${taskQueue}'`];
      const first = await runStarter(query, taskQueue);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      const rerunIds = restarts.map((h) => `${h.workflowId}-rerun-${h.firstExecutionRunId.slice(0, 8)}`);
      for (const [i, h] of restarts.entries()) {
        expect(first.stdout).toContain(
          `Started ${rerunIds[i]}, a rerun of ${h.workflowId} (run ${h.firstExecutionRunId}, restartInstance)`,
        );
      }
      expect(first.stdout).toContain(
        `Refused ${decision.workflowId} (run ${decision.firstExecutionRunId}, evaluateDecision): evaluateDecision ` +
          'asks the decision evaluation, and may be charged again; --allow-paid reruns it',
      );
      expect(first.stdout).toContain(': 2 started, 0 already rerun, 1 refused.');
      for (const [i, h] of restarts.entries()) {
        const [was, rerun] = await Promise.all([
          startedAttributes(client, h.workflowId),
          startedAttributes(client, rerunIds[i]),
        ]);
        expect(rerun.workflowType?.name).toBe('restartInstance');
        expect(rerun.taskQueue?.name).toBe(taskQueue);
        expect(Buffer.from(rerun.input!.payloads![0].data!)).toEqual(Buffer.from(was.input!.payloads![0].data!));
        const memo = await decodeMapFromPayloads(client.options.loadedDataConverter, rerun.memo!.fields);
        expect(memo!.note).toBe('kept');
        expect(memo!.rerunOf).toEqual({
          workflowId: h.workflowId,
          runId: h.firstExecutionRunId,
        });
        const rerunDescription = await client.workflow.getHandle(rerunIds[i]).describe();
        expect(rerunDescription.typedSearchAttributes.get(SearchAttributes.memberId)).toBe('member-rerun');
      }

      // The reruns fail on the same input: failed reruns are not rerun, and the failed runs are rerun already.
      await Promise.all(rerunIds.map((id) => failed(client.workflow.getHandle(id))));
      await waitFor(async () => (await count("AND ExecutionStatus = 'Failed'")) === 5, 10_000, 'visibility');
      const again = await runStarter(query, taskQueue);
      expect(again.code).toBe(0);
      for (const h of restarts) expect(again.stdout).toContain(`Already rerun ${h.workflowId} (run`);
      expect(again.stdout).toContain('it is itself a rerun that failed too');
      expect(again.stdout).toContain(': 0 started, 2 already rerun, 3 refused.');
      expect(await count('')).toBe(6);

      const paidRerun = `${decision.workflowId}-rerun-${decision.firstExecutionRunId.slice(0, 8)}`;
      const dry = await runStarter([...query, '--allow-paid', '--dry-run'], taskQueue);
      expect(dry.stdout).toContain(`Would start ${paidRerun}, a rerun of ${decision.workflowId}`);
      expect(dry.stdout).toContain(': 1 would start, 2 already rerun, 2 refused (--dry-run: nothing started).');
      expect(await count('')).toBe(6);

      const paid = await runStarter([...query, '--allow-paid'], taskQueue);
      expect(paid.code).toBe(0);
      expect(paid.stdout).toContain(`Started ${paidRerun}, a rerun of ${decision.workflowId}`);
      expect(paid.stdout).toContain(': 1 started, 2 already rerun, 2 refused.');
      expect((await startedAttributes(client, paidRerun)).workflowType?.name).toBe('evaluateDecision');
    }));
});
