// Workflow code runs in Temporal's deterministic sandbox: no I/O, no Node modules, no clock of its
// own. These folders hold it and what it builds on; eslint.config.mjs applies the rule below to
// them, and test/lint/workflow-sandbox.test.ts checks that a forbidden import fails.
const WORKFLOW_SAFE = [
  'src/api/**/*.ts',
  'src/platform/**/*.ts',
  'src/budget/**/*.ts',
  'src/shared/**/*.ts',
  'src/workflows/**/*.ts',
];

const WHY = 'is workflow-safe code (docs/contributing.md)';

const rules = {
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          // Everything outside the project but the sandbox's own packages: Node built-ins, ky, and
          // Temporal's client, worker and activity packages.
          regex: '^(?!zod$|@temporalio/workflow$|@temporalio/common$|\\.)',
          message: `${WHY}: it may import only zod, @temporalio/workflow and @temporalio/common.`,
        },
        {
          regex:
            '^\\.\\.?/(.*/)?(platform-client|config|fetching|artifacts|namespace|sandbox|emulator|devserver|cluster|starter|worker)(/|$)',
          message: `${WHY}: that folder does I/O.`,
        },
        {
          regex: '^\\.\\.?/(.*/)?activities(/|$)',
          allowTypeImports: true,
          message: `${WHY}: activities are imported only as types, for proxyActivities.`,
        },
      ],
    },
  ],
};

module.exports = { WORKFLOW_SAFE, rules };
