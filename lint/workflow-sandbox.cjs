// Workflow code runs in Temporal's deterministic sandbox: no I/O, no Node modules, no clock of its
// own. WORKFLOW_SAFE names, by glob, the files that hold it and what it builds on; eslint.config.mjs
// applies the rule below to them, and the rule lets them import only each other (activities as types,
// for proxyActivities) and the sandbox's own packages. test/lint/workflow-sandbox.test.ts checks it.
// .dependency-cruiser.cjs draws the same boundary from these lists; only this rule reads which names a
// file takes from @platform-ops/client.
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');

/** The client package's modules that do I/O; workflows import the package, never what these declare. */
const CLIENT_IO = ['packages/client/src/start.ts', 'packages/client/src/codec.ts'];

const WORKFLOW_SAFE = {
  files: [
    'src/operations/**/*.ts',
    'src/workflows/**/*.ts',
    'src/api/**/*.ts',
    'src/platform/**/*.ts',
    'src/shared/**/*.ts',
    // The Nexus caller's workflow, bundled by the caller (src/starter/nexus-caller.ts).
    'src/nexus/caller-workflow.ts',
    'packages/client/src/**/*.ts',
  ],
  ignores: [
    // An operation's activities (activities.ts, activities-*.ts) do its I/O.
    'src/operations/*/activities*.ts',
    'src/operations/activities*.ts',
    // An operation's starter flags read files and build commander options: only the starter loads them.
    'src/operations/*/starter.ts',
    // The client's start and codec call the server and Node's crypto: a backend's, never a workflow's; its
    // entry lists them with the contracts.
    ...CLIENT_IO,
    'packages/client/src/index.ts',
  ],
};

const ROOT = path.resolve(__dirname, '..');
const PACKAGES = ['zod', '@temporalio/workflow', '@temporalio/common', '@platform-ops/client', 'nexus-rpc'];
const WHY = 'This file is workflow-safe code (docs/contributing.md)';

/** What the client's I/O modules export by value, read once a lint run: a workflow may import none of it. */
let ioNamesRead;
const clientIoNames = () =>
  (ioNamesRead ??= new Set(
    CLIENT_IO.flatMap((file) =>
      [
        ...readFileSync(path.join(__dirname, '..', file), 'utf8').matchAll(
          /^export (?:async )?(?:function|class|const|let) (\w+)/gm,
        ),
      ].map((m) => m[1]),
    ),
  ));

/**
 * A glob as a regular expression's source: `**` spans folders, `*` stays within one. Without nested quantifiers,
 * which dependency-cruiser (.dependency-cruiser.cjs, reading the same globs) refuses as unsafe.
 */
const globSource = (glob) =>
  glob
    .split('**/')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('(?:.*/|)');
const globRegex = (glob) => new RegExp(`^${globSource(glob)}$`);

const [SAFE, NOT_SAFE] = [WORKFLOW_SAFE.files, WORKFLOW_SAFE.ignores].map((globs) => globs.map(globRegex));

/** Whether a file, relative to the project root, is workflow-safe. */
const isWorkflowSafe = (file) => SAFE.some((r) => r.test(file)) && !NOT_SAFE.some((r) => r.test(file));
/** An operation's activities, beside src/activities/ (what they share): workflows import them as types only. */
const ACTIVITY_FILES = ['src/operations/*/activities*.ts', 'src/operations/activities*.ts'];
const ACTIVITIES = ACTIVITY_FILES.map(globRegex);
const isActivities = (file) => ACTIVITIES.some((r) => r.test(file));

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
      clientIo: `${WHY}: {{name}} is a backend's start or the payload codec, not for workflows (packages/client/src/start.ts, codec.ts).`,
      io: `${WHY}: {{target}} is not (lint/workflow-sandbox.cjs names what is), and may do I/O.`,
      starter: `${WHY}: {{target}} is a starter module, for the starter only (it reads files, builds the command line).`,
      activities: `${WHY}: activities are imported only as types, for proxyActivities.`,
    },
  },
  create(context) {
    const ioNames = clientIoNames();
    const check = (node, typeOnly, names = []) => {
      const source = node.value;
      if (typeof source !== 'string') return;
      if (!source.startsWith('.')) {
        if (!PACKAGES.includes(source)) context.report({ node, messageId: 'package', data: { source } });
        else if (source === '@platform-ops/client' && !typeOnly) {
          for (const name of names)
            if (name === '*' || ioNames.has(name)) context.report({ node, messageId: 'clientIo', data: { name } });
        }
        return;
      }
      const { target, file } = imported(context.filename, source);
      if (/(^|\/)starter(\.ts)?$/.test(target)) {
        context.report({ node, messageId: 'starter', data: { target } });
        return;
      }
      if (isWorkflowSafe(file)) return;
      if (target === 'src/activities' || target.startsWith('src/activities/') || isActivities(file)) {
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
          node.specifiers
            .filter((s) => s.importKind !== 'type')
            .map((s) => (s.type === 'ImportSpecifier' ? (s.imported.name ?? s.imported.value) : '*')),
        ),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node.source, false),
    };
  },
};

const plugin = { rules: { imports: importsRule } };
const rules = { 'workflow-sandbox/imports': 'error' };

module.exports = { WORKFLOW_SAFE, PACKAGES, ACTIVITY_FILES, globSource, isWorkflowSafe, plugin, rules };
