// Workflow code runs in Temporal's deterministic sandbox: no I/O, no Node modules, no clock of its
// own. WORKFLOW_SAFE names, by glob, the files that hold it and what it builds on; eslint.config.mjs
// applies the rule below to them, and the rule lets them import only each other (activities as types,
// for proxyActivities) and the sandbox's own packages. test/lint/workflow-sandbox.test.ts checks it.
const { existsSync } = require('node:fs');
const path = require('node:path');

const WORKFLOW_SAFE = {
  files: [
    'src/workflows/**/*.ts',
    'src/api/**/*.ts',
    'src/platform/**/*.ts',
    'src/budget/**/*.ts',
    'src/shared/**/*.ts',
  ],
  // An operation's starter flags read files and build commander options: only the starter loads them.
  ignores: ['src/workflows/*/starter.ts'],
};

const ROOT = path.resolve(__dirname, '..');
const PACKAGES = ['zod', '@temporalio/workflow', '@temporalio/common'];
const WHY = 'This file is workflow-safe code (docs/contributing.md)';

/** `**` spans folders, `*` stays within one. */
const globRegex = (glob) =>
  new RegExp(
    `^${glob
      .split('**/')
      .map((part) =>
        part
          .split('*')
          .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]*'),
      )
      .join('(?:.*/)?')}$`,
  );
const [SAFE, NOT_SAFE] = [WORKFLOW_SAFE.files, WORKFLOW_SAFE.ignores].map((globs) => globs.map(globRegex));

/** Whether a file, relative to the project root, is workflow-safe. */
const isWorkflowSafe = (file) => SAFE.some((r) => r.test(file)) && !NOT_SAFE.some((r) => r.test(file));

/** The module a relative import names, relative to the project root: its path, and its file. */
function imported(importer, source) {
  const target = path
    .relative(ROOT, path.resolve(path.dirname(importer), source))
    .split(path.sep)
    .join('/');
  const files = target.endsWith('.ts') ? [target] : [`${target}.ts`, `${target}/index.ts`];
  return { target, file: files.find((f) => existsSync(path.join(ROOT, f))) ?? files[0] };
}

const importsRule = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      package: `${WHY}: it may import only ${PACKAGES.join(', ')} and workflow-safe files, not {{source}}.`,
      io: `${WHY}: {{target}} is not (lint/workflow-sandbox.cjs names what is), and may do I/O.`,
      starter: `${WHY}: {{target}} is a starter module, for the starter only (it reads files, builds the command line).`,
      activities: `${WHY}: activities are imported only as types, for proxyActivities.`,
    },
  },
  create(context) {
    const check = (node, typeOnly) => {
      const source = node.value;
      if (typeof source !== 'string') return;
      if (!source.startsWith('.')) {
        if (!PACKAGES.includes(source)) context.report({ node, messageId: 'package', data: { source } });
        return;
      }
      const { target, file } = imported(context.filename, source);
      if (/(^|\/)starter(\.ts)?$/.test(target)) {
        context.report({ node, messageId: 'starter', data: { target } });
        return;
      }
      if (isWorkflowSafe(file)) return;
      if (target === 'src/activities' || target.startsWith('src/activities/')) {
        if (!typeOnly) context.report({ node, messageId: 'activities' });
        return;
      }
      context.report({ node, messageId: 'io', data: { target } });
    };
    return {
      ImportDeclaration: (node) =>
        check(
          node.source,
          node.importKind === 'type' ||
            (node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type')),
        ),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node.source, false),
    };
  },
};

const plugin = { rules: { imports: importsRule } };
const rules = { 'workflow-sandbox/imports': 'error' };

module.exports = { WORKFLOW_SAFE, isWorkflowSafe, plugin, rules };
