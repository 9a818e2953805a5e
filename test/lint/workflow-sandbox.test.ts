// The sandbox boundary is enforced by lint, not by memory: a forbidden import in workflow-safe code
// must fail `npm run lint`, and the rule must apply to every workflow-safe file and to no other.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const sandbox = require('../../lint/workflow-sandbox.cjs') as {
  isWorkflowSafe(file: string): boolean;
  plugin: ESLint.Plugin;
  rules: Linter.RulesRecord;
};

const root = path.resolve(__dirname, '../..');
const RULE = 'workflow-sandbox/imports';

// The rule alone, without type information, so probe code need not be a file of the project.
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { 'workflow-sandbox': sandbox.plugin },
      rules: sandbox.rules,
    },
  ],
});

async function violations(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, {
    filePath: path.join(root, 'src/operations/mediaGeneration/probe.ts'),
  });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('workflow-safe code may not import I/O', () => {
  it.each([
    ["import { readFileSync } from 'node:fs';", 'only zod'],
    ["import { readFileSync } from 'fs';", 'only zod'],
    ["import ky from 'ky';", 'only zod'],
    ["import { Client } from '@temporalio/client';", 'only zod'],
    ["import { Context } from '@temporalio/activity';", 'only zod'],
    ["import { PlatformClient } from '../../platform-client/client';", 'src/platform-client/client is not'],
    ["import { loadPlatformConfig } from '../../platform-client/config';", 'src/platform-client/config is not'],
    ["import { guardedFetch } from '../../fetching/guarded-fetch';", 'src/fetching/guarded-fetch is not'],
    ["import { SubmitPacing } from '../../ratelimit/shared-pacing';", 'src/ratelimit/shared-pacing is not'],
    ["import { startEmulator } from '@platform-ops/emulator';", 'only zod'],
    ["import { startWorkflow } from '@platform-ops/client';", 'startWorkflow is a backend'],
    ["import { loadKeyring, MediaGenerationInput } from '@platform-ops/client';", 'loadKeyring is a backend'],
    ["import * as client from '@platform-ops/client';", '* is a backend'],
    ["import { x } from '../../../packages/client/src/start';", 'packages/client/src/start is not'],
    ["export * from '../../config/settings';", 'src/config/settings is not'],
    ["import { starter } from './starter';", 'src/operations/mediaGeneration/starter is a starter module'],
    ["import { starter } from '../batchJob/starter';", 'src/operations/batchJob/starter is a starter module'],
    ["import { buildWorkflowInput } from '../../starter/workflow-inputs';", 'src/starter/workflow-inputs is not'],
    ["import { submitMediaTask } from './activities';", 'only as types'],
    ["import { outputsOf } from './activities-poll';", 'only as types'],
    ["import { createActivities } from '../activities';", 'only as types'],
    ["import { earlierPaidCall } from '../../activities/earlier-runs';", 'only as types'],
  ])('%s fails lint', async (line, why) => {
    const found = await violations(`${line}\n`);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(RULE);
    expect(found[0]).toContain(why);
  });

  it.each([
    "import { z } from 'zod';",
    "import { proxyActivities, sleep } from '@temporalio/workflow';",
    "import { ApplicationFailure } from '@temporalio/common';",
    "import type { MediaActivities } from './activities';",
    "import { type MediaActivities } from './activities';",
    "import { MediaGenerationInput, parseInput, WorkflowType } from '@platform-ops/client';",
    "import { type StartOptions } from '@platform-ops/client';",
    "import type { Handle } from '@platform-ops/client';",
    "import { usdToTenThousandths } from '../../platform/money';",
    "import { quantitiesOf } from '../budgetGatedJob/quantities';",
    "import { submitStep } from './workflows-submit';",
    "import { retryPolicies } from '../../workflows/retry-policies';",
  ])('%s passes', async (line) => {
    expect(await violations(`${line}\n`)).toEqual([]);
  });
});

describe('the project lint config applies the rule', () => {
  // One file per workflow-safe folder, and the I/O files beside them where the rule must not apply.
  const config = (file: string) =>
    JSON.parse(
      execFileSync(path.join(root, 'node_modules/.bin/eslint'), ['--print-config', file], {
        cwd: root,
        encoding: 'utf8',
      }),
    ) as { rules: Record<string, unknown> };

  it.each([
    'packages/client/src/contract.ts',
    'src/platform/money.ts',
    'src/operations/budgetGatedJob/quantities.ts',
    'src/shared/time.ts',
    'packages/client/src/operations.ts',
    'packages/client/src/contracts/mediaGeneration.ts',
    'src/operations/budgetLedger/ledger-book.ts',
    'src/operations/mediaGeneration/workflows.ts',
    'src/operations/mediaGeneration/workflows-submit.ts',
    'src/nexus/caller-workflow.ts',
  ])('to %s', (file) => {
    expect(sandbox.isWorkflowSafe(file)).toBe(true);
    expect(config(file).rules[RULE]).toEqual([2]);
  });

  it.each([
    'src/operations/mediaGeneration/starter.ts',
    'src/operations/mediaGeneration/activities-poll.ts',
    'src/operations/activities.ts',
    'packages/client/src/start.ts',
    'packages/client/src/codec.ts',
    'packages/client/src/index.ts',
    'src/starter/workflow-inputs.ts',
    'src/worker.ts',
    'src/nexus/handlers.ts',
  ])('not to %s, which does I/O', (file) => {
    expect(sandbox.isWorkflowSafe(file)).toBe(false);
    expect(config(file).rules[RULE]).toBeUndefined();
  });

  it.each([
    'src/operations/mediaGeneration/activities.ts',
    'src/operations/batchJob/activities-upload.ts',
    'src/operations/activities.ts',
    'src/activities/earlier-runs.ts',
  ])('not to %s, an activity, which may import no workflow code', (file) => {
    const rules = config(file).rules;
    expect(rules[RULE]).toBeUndefined();
    const [, options] = rules['@typescript-eslint/no-restricted-imports'] as [
      number,
      { patterns: { regex: string }[] },
    ];
    const [forbidden] = options.patterns.map((p) => new RegExp(p.regex));
    for (const spec of ['./workflows', './workflows-submit', '../../workflows/status']) expect(spec).toMatch(forbidden);
    for (const spec of ['./activities-poll', './quantities', '@platform-ops/client'])
      expect(spec).not.toMatch(forbidden);
  });
});
