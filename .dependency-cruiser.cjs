// The floors of the house: which code may import which (docs/contributing.md#floors). `npm run lint` checks them,
// and test/lint/house-rules.test.ts shows each rule failing on a violation.
//
//   programs     src/worker.ts  src/starter.ts  src/starter/  src/cluster/  src/codec/  src/nexus/  src/webhooks/main.ts
//   operations   src/operations/<operation>/ (one apart from another), and the lists beside them
//   shared       src/activities/  src/workflows/  src/shared/  src/platform/  src/api/
//   platform     src/platform-client/
//   contracts    packages/client/src (@platform-ops/client)
//
// Each floor imports only from the floors below it. src/cli/ is the starter kit: the starter and each operation's
// starter.ts use it. Paths are relative to the repository root; @platform-ops/client resolves to its sources
// through tsconfig.json's paths.
const sandbox = require('./lint/workflow-sandbox.cjs');

const anyOf = (globs) => globs.map((glob) => `${sandbox.globSource(glob)}$`).join('|');

/** A file the sandbox rule calls workflow-safe (lint/workflow-sandbox.cjs): in its globs, and not in their ignores. */
const WORKFLOW_SAFE = `^(?!(?:${anyOf(sandbox.WORKFLOW_SAFE.ignores)}))(?:${anyOf(sandbox.WORKFLOW_SAFE.files)})`;
// Wherever node_modules is: a copy of the tree may link to the repository's.
const NODE_MODULES = '(?:^|/)node_modules/';
const ACTIVITIES = `^src/activities/|^(?:${anyOf(sandbox.ACTIVITY_FILES)})`;
const SANDBOX_PACKAGES = `(?:^|/)node_modules/(?:${sandbox.PACKAGES.filter((p) => !p.startsWith('@platform-ops/')).join('|')})/`;
/** Workflows import the client package by name; lint/workflow-sandbox.cjs checks the names they take from it. */
const CLIENT_ENTRY = '^packages/client/src/index\\.ts$';

const PROGRAMS = '^src/(?:worker\\.ts|starter\\.ts|starter/|cluster/|codec/|nexus/|webhooks/main\\.ts)';
const OPERATIONS = '^src/operations/';
const STARTER_KIT = '^src/cli/';
const AUTO_RENEW_WORKFLOWS = '^src/operations/autoRenew/workflows\\.ts$';

const sandboxComment =
  "Workflow code runs in Temporal's deterministic sandbox and is replayed from history: it imports only the " +
  "sandbox's packages (lint/workflow-sandbox.cjs), the client package and other workflow-safe files, and " +
  'activities as types for proxyActivities; never Node, I/O code or a starter.';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A circle has no floor to stand on: none of its modules can be read, tested or moved alone.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'client-package-alone',
      comment:
        '@platform-ops/client is installed alone by backends: it imports nothing of the service, the emulator, ' +
        'the benchmarks or the tests.',
      severity: 'error',
      from: { path: '^packages/client/src/' },
      to: { path: '^(?:src|bench|scripts|test)/|^packages/(?!client/)' },
    },
    {
      name: 'emulator-package-alone',
      comment:
        'The emulator is a package of its own, run without the service: of this repository, it imports only the ' +
        'client package.',
      severity: 'error',
      from: { path: '^packages/emulator/src/' },
      to: { path: '^(?:src|bench|scripts|test)/' },
    },
    {
      name: 'platform-client-floor',
      comment:
        'The platform client stands on the contracts alone: activities and programs call the platform through ' +
        'it, so it imports from src/ only the pure shared pieces.',
      severity: 'error',
      from: { path: '^src/platform-client/' },
      to: { path: '^src/', pathNot: '^src/(?:platform-client|shared|platform)/' },
    },
    {
      name: 'shared-floor',
      comment:
        'The shared activity and workflow pieces serve every operation and program: they import no operation, ' +
        'no program and not the starter kit.',
      severity: 'error',
      from: { path: '^src/(?:activities|workflows|shared|platform|api)/' },
      to: { path: [OPERATIONS, PROGRAMS, STARTER_KIT] },
    },
    {
      name: 'operations-floor',
      comment: 'The programs run the operations: an operation imports no program.',
      severity: 'error',
      from: { path: OPERATIONS },
      to: { path: PROGRAMS },
    },
    {
      name: 'starter-kit-for-starters',
      comment: "Only an operation's starter.ts builds the command line: its workflows and activities never load it.",
      severity: 'error',
      from: { path: OPERATIONS, pathNot: '^src/operations/[^/]+/starter\\.ts$' },
      to: { path: STARTER_KIT },
    },
    {
      name: 'operations-apart',
      comment:
        "An operation's folder imports no other operation's files: what two share lives in src/activities/, " +
        'src/workflows/, src/shared/, src/platform/ or the contracts.',
      severity: 'error',
      from: { path: '^src/operations/([^/]+)/', pathNot: AUTO_RENEW_WORKFLOWS },
      to: { path: '^src/operations/[^/]+/', pathNot: '^src/operations/$1/' },
    },
    {
      name: 'operations-apart',
      comment:
        "autoRenew composes two operations: it lists instances with instances' activity, prices a renewal with " +
        "budgetGatedJob's and runs it as a budgetGatedJob child. It imports those as types, and nothing else of theirs.",
      severity: 'error',
      from: { path: AUTO_RENEW_WORKFLOWS },
      to: {
        path: '^src/operations/(?!autoRenew/)[^/]+/',
        pathNot: '^src/operations/(?:budgetGatedJob/(?:activities|workflows)|instances/activities)\\.ts$',
      },
    },
    {
      name: 'operations-apart',
      comment: 'autoRenew takes only types from the operations it composes.',
      severity: 'error',
      from: { path: AUTO_RENEW_WORKFLOWS },
      to: { path: '^src/operations/(?!autoRenew/)[^/]+/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflow-sandbox',
      comment: sandboxComment,
      severity: 'error',
      from: { path: WORKFLOW_SAFE },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'workflow-sandbox',
      comment: sandboxComment,
      severity: 'error',
      from: { path: WORKFLOW_SAFE },
      to: { path: NODE_MODULES, pathNot: SANDBOX_PACKAGES },
    },
    {
      name: 'workflow-sandbox',
      comment: sandboxComment,
      severity: 'error',
      from: { path: WORKFLOW_SAFE },
      // What is not a package: a file of this repository, or an import nothing resolves. JSON is data, which the
      // bundle inlines.
      to: {
        dependencyTypesNot: ['core'],
        pathNot: [NODE_MODULES, WORKFLOW_SAFE, CLIENT_ENTRY, ACTIVITIES, '\\.json$'],
      },
    },
    {
      name: 'workflow-sandbox',
      comment: sandboxComment,
      severity: 'error',
      from: { path: WORKFLOW_SAFE },
      to: { path: ACTIVITIES, dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: NODE_MODULES },
    // Type-only imports count: a workflow's `import type` of another operation's activities is a dependency too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
