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
  const [result] = await eslint.lintText(code, { filePath: path.join(root, 'src/workflows/media/probe.ts') });
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
    ["import { startEmulator } from '../../../packages/emulator/src/server';", 'packages/emulator/src/server is not'],
    ["export * from '../../config/settings';", 'src/config/settings is not'],
    ["import { starter } from './starter';", 'src/workflows/media/starter is a starter module'],
    ["import { starter } from '../batch/starter';", 'src/workflows/batch/starter is a starter module'],
    ["import { buildWorkflowInput } from '../../starter/workflow-inputs';", 'src/starter/workflow-inputs is not'],
    ["import { submitMediaTask } from '../../activities/media/activities';", 'only as types'],
    ["import * as activities from '../../activities';", 'only as types'],
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
    "import type { Activities } from '../../activities';",
    "import { type Activities } from '../../activities';",
    "import { mediaGenerationInput } from '../../api/schemas/media';",
    "import { usdToTenThousandths } from '../../platform/money';",
    "import { BudgetJob } from '../budget/contract';",
    "import { parseInput } from '../../api/failures';",
    "export { WorkflowType } from '../operations';",
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
    'src/api/contract.ts',
    'src/platform/money.ts',
    'src/budget/quantities.ts',
    'src/shared/time.ts',
    'src/workflows/operations.ts',
    'src/workflows/media/contract.ts',
    'src/workflows/budget/ledger.ts',
  ])('to %s', (file) => {
    expect(sandbox.isWorkflowSafe(file)).toBe(true);
    expect(config(file).rules[RULE]).toEqual([2]);
  });

  it.each(['src/workflows/media/starter.ts', 'src/starter/workflow-inputs.ts', 'src/worker.ts'])(
    'not to %s, which does I/O',
    (file) => {
      expect(sandbox.isWorkflowSafe(file)).toBe(false);
      expect(config(file).rules[RULE]).toBeUndefined();
    },
  );

  it('not to activities, which do the I/O; they may import only the contracts of workflow code', () => {
    const rules = config('src/activities/media/activities.ts').rules;
    expect(rules[RULE]).toBeUndefined();
    const [, options] = rules['@typescript-eslint/no-restricted-imports'] as [
      number,
      { patterns: { regex: string }[] },
    ];
    expect(options.patterns.map((p) => p.regex)).toEqual(['^\\.\\.?/(.*/)?workflows/(?!(\\w+/contract|operations)$)']);
  });
});
