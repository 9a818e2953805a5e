import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import workflowSandbox from './lint/workflow-sandbox.cjs';

export default tseslint.config(
  {
    ignores: [
      'lib/**',
      'packages/*/lib/**',
      'packages/*/*.js',
      'node_modules/**',
      'coverage/**',
      '.temporal/**',
      // Tests' build caches and scratch copies of the checkout (test/starter/up-hangup.test.ts).
      '.cache/**',
      'schemas/**',
      '*.js',
      '*.cjs',
      '*.mjs',
      'lint/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['test/**/*.ts', 'packages/*/test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    ...workflowSandbox.WORKFLOW_SAFE,
    plugins: { 'workflow-sandbox': workflowSandbox.plugin },
    rules: workflowSandbox.rules,
  },
  {
    // Activities are imported by workflows (as types), never the other way round: what both need lives in
    // the contracts (@platform-ops/client) and in the pure modules beside them, never in workflow code
    // (an operation's workflows.ts and workflows-*.ts, and src/workflows/).
    files: ['src/activities/**/*.ts', 'src/operations/*/activities*.ts', 'src/operations/activities*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\.?/(.*/)?workflows([-/].*)?$',
              message: 'activities import no workflow code: the contracts are in @platform-ops/client.',
            },
          ],
        },
      ],
    },
  },
  prettier,
  // A file is read whole: past 350 lines it holds more than one job (docs/contributing.md).
  {
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts', 'bench/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 350, skipBlankLines: false, skipComments: false }] },
  },
  // A workflow reads as its business steps: each function of workflow code within 60 lines, its details in named
  // functions beside it (docs/contributing.md).
  {
    files: ['src/operations/*/workflows*.ts', 'src/workflows/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
);
