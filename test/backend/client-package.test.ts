// The client package as a backend gets it: packed (`npm pack`, which builds it), installed alone into
// an empty project from the registry, loaded in Node and compiled against by TypeScript. It stays
// light: its dependencies are @temporalio/client, @temporalio/common and zod, it never loads the
// worker, and its installed node_modules stay under 60 MB. From there, a backend's run is encrypted as the service's.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { tscAsConsumer } from '../helpers/consumer-tsc';
import { encryptingConverter, withWorker } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const run = promisify(execFile);
const packageDir = path.resolve(__dirname, '../../packages/client');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const CONSUMER = `
import type { Client } from '@temporalio/client';
import { mediaProgressQuery, startWorkflow } from '@platform-ops/client';

export async function generate(client: Client): Promise<string> {
  const { handle, started } = await startWorkflow(
    client,
    'mediaGeneration',
    { operation: 'text-to-video', request: { prompt: 'waves at dusk', duration: 5 } },
    { idempotencyKey: 'order-42' },
  );
  const progress = await handle.query(mediaProgressQuery);
  const result = await handle.result();
  return \`\${started} \${progress.status} \${result.taskId} \${result.outputs[0]?.kept.uri ?? ''}\`;
}
`;

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

/** Every file under `dir`, relative. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, path.join(prefix, e.name)) : [path.join(prefix, e.name)],
  );
}

describe('@platform-ops/client, packed and installed alone', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'platform-ops-client-'));
    const { stdout } = await run(npm, ['pack', '--silent', '--pack-destination', dir], { cwd: packageDir });
    const tarball = path.join(dir, stdout.trim().split('\n').pop()!);
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'a-backend', private: true }));
    await run(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: dir });
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('installs light: only the Temporal client, common and zod come with it, in at most 60 MB', () => {
    const modules = path.join(dir, 'node_modules');
    const mb = bytesUnder(modules) / 1024 / 1024;
    expect(mb).toBeLessThanOrEqual(60);
    const temporal = readdirSync(path.join(modules, '@temporalio')).sort();
    expect(temporal).not.toContain('worker');
    expect(temporal).not.toContain('core-bridge');
    expect(readdirSync(modules)).not.toContain('fastify');
  });

  it('is a package of its own: a flat lib/, one public entry by its exports map, a README and a changelog', async () => {
    const installed = path.join(dir, 'node_modules', '@platform-ops', 'client');
    const files = filesUnder(installed);
    expect(files).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'CHANGELOG.md', 'lib/index.js', 'lib/index.d.ts']),
    );
    expect(files.filter((f) => /^lib\/(src|packages)\//.test(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as {
      version: string;
      exports: Record<string, unknown>;
    };
    expect(Object.keys(manifest.exports)).toEqual(['.', './package.json']);
    // The changelog's newest entry is the version packed.
    expect(/^## (\S+)/m.exec(readFileSync(path.join(installed, 'CHANGELOG.md'), 'utf8'))?.[1]).toBe(manifest.version);
    const deep = await run(process.execPath, ['-e', "require('@platform-ops/client/lib/contract')"], {
      cwd: dir,
    }).catch((e: { stderr: string }) => e.stderr);
    expect(deep).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('loads in Node by its package name, without the worker', async () => {
    const script = `
      const c = require('@platform-ops/client');
      const loaded = Object.keys(require.cache);
      console.log(JSON.stringify({
        starts: ['startWorkflow', 'attachTask', 'attachBatch', 'workflowHandle'].filter((k) => typeof c[k] === 'function'),
        types: c.WORKFLOW_TYPES.length,
        worker: loaded.some((f) => f.includes('@temporalio/worker') || f.includes('@temporalio/workflow')),
      }));`;
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: dir });
    expect(JSON.parse(stdout)).toEqual({
      starts: ['startWorkflow', 'attachTask', 'attachBatch', 'workflowHandle'],
      types: 14,
      worker: false,
    });
  });

  it(
    'starts an encrypted run from the outside project and reads its result decrypted',
    () =>
      withWorker(
        'packed-encrypted',
        async ({ client, taskQueue, namespace, address }) => {
          const state = `a state no one else reads ${randomUUID()}`;
          // The backend's own code: its client with the same keys (PAYLOAD_KEYS, inherited here) as the worker's.
          const script = `
        const { Client, Connection } = require('@temporalio/client');
        const c = require('@platform-ops/client');
        (async () => {
          const connection = await Connection.connect({ address: ${JSON.stringify(address)} });
          const client = new Client({ connection, namespace: ${JSON.stringify(namespace)}, dataConverter: c.loadDataConverter() });
          const { handle } = await c.startWorkflow(client, 'evaluateDecision', {
            state: ${JSON.stringify(state)},
            questions: [{ kind: 'yes_no', question: 'Is it a greeting?' }],
          }, { taskQueue: ${JSON.stringify(taskQueue)} });
          const result = await handle.result();
          console.log(JSON.stringify({ workflowId: handle.workflowId, question: result.answers[0].question }));
          await connection.close();
        })().catch((err) => { console.error(err); process.exit(1); });`;
          const env = { ...process.env, PAYLOAD_ENCRYPTION: 'on' };
          const { stdout } = await run(process.execPath, ['-e', script], { cwd: dir, env });
          const { workflowId, question } = JSON.parse(stdout) as { workflowId: string; question: string };
          expect(question).toBe('Is it a greeting?');
          // What the server holds is ciphertext: the start's input names its key, and the state is nowhere in it.
          const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
          const [input] = events![0].workflowExecutionStartedEventAttributes!.input!.payloads!;
          expect(Buffer.from(input.metadata!.encoding).toString()).toBe('binary/encrypted');
          expect(Buffer.from(input.data!).includes(Buffer.from(state))).toBe(false);
        },
        { dataConverter: encryptingConverter() },
      ),
    60_000,
  );

  it(
    'refuses a start through a Client without the converter, starts one allowed plaintext, and names the fix on reading',
    () =>
      withWorker(
        'packed-plaintext',
        async ({ taskQueue, namespace, address }) => {
          const key = `order-${randomUUID().slice(0, 8)}`;
          // The backend's first line of code: a Client with no data converter.
          const script = `
        const { Client, Connection } = require('@temporalio/client');
        const c = require('@platform-ops/client');
        const input = { state: 'a state in the clear?', questions: [{ kind: 'yes_no', question: 'Is it a greeting?' }] };
        const opts = (k) => ({ taskQueue: ${JSON.stringify(taskQueue)}, idempotencyKey: k });
        const outcome = (p) => p.then(() => 'ok', (err) => err.name + ': ' + err.message);
        (async () => {
          const connection = await Connection.connect({ address: ${JSON.stringify(address)} });
          const client = new Client({ connection, namespace: ${JSON.stringify(namespace)} });
          const refused = await outcome(c.startWorkflow(client, 'evaluateDecision', input, opts(${JSON.stringify(key)})));
          const deploy = await outcome(c.deployEndpoint(client, { config: { name: 'ep-x', image: 'i', gpu: 'a100', minWorkers: 0, maxWorkers: 1 } }));
          const wrongNamespace = await outcome(Promise.resolve().then(() => c.allowPlaintext(client, 'elsewhere')));
          c.allowPlaintext(client, ${JSON.stringify(namespace)});
          c.allowPlaintext(client, ${JSON.stringify(namespace)});
          const { handle } = await c.startWorkflow(client, 'evaluateDecision', input, opts(${JSON.stringify(key)} + '-clear'));
          const result = await outcome(handle.result());
          const answer = await outcome(c.workflowHandle(client, 'evaluateDecision', ${JSON.stringify(key)} + '-clear').query(c.statusQuery));
          console.log(JSON.stringify({ refused, deploy, wrongNamespace, result, answer }));
          await connection.close();
        })().catch((err) => { console.error(err); process.exit(1); });`;
          const env = { ...process.env, PAYLOAD_ENCRYPTION: 'on' };
          const { stdout, stderr } = await run(process.execPath, ['-e', script], { cwd: dir, env });
          const said = JSON.parse(stdout) as Record<string, string>;
          const fix =
            'build the Client with the data converter, `new Client({ connection, namespace, dataConverter: ' +
            'loadDataConverter() })`, which reads the key from PAYLOAD_KEY_FILE or PAYLOAD_KEYS (docs/encryption.md)';
          expect(said.refused).toBe(
            "PlaintextRefusedError: Starting evaluateDecision refused before anything was sent: this Client's data " +
              "converter does not encrypt, so the input would be written to Temporal's history in the clear. " +
              `Fix: ${fix}. A namespace that keeps payloads in the clear on purpose: allowPlaintext(client, '${namespace}').`,
          );
          expect(said.deploy).toMatch(/^PlaintextRefusedError: deployEndpoint refused before anything was sent/);
          expect(said.wrongNamespace).toMatch(/^PlaintextRefusedError: allowPlaintext names namespace "elsewhere"/);
          // Nothing was started for the refused key; the allowed start was, and said so once.
          const count = (id: string) =>
            run(testEnv('temporalCli'), [
              'workflow',
              'count',
              '--address',
              address,
              '--namespace',
              namespace,
              '--query',
              `WorkflowId = '${id}'`,
            ]).then(({ stdout: out }) => out.trim());
          expect(await count(`evaluateDecision:${key}`)).toBe('Total: 0');
          expect(await count(`evaluateDecision:${key}-clear`)).toBe('Total: 1');
          expect(stderr.match(/PLATFORM_OPS_PLAINTEXT/g)).toHaveLength(1);
          expect(stderr).toContain(`Payloads written to namespace "${namespace}" by this process are not encrypted`);
          // The worker encrypts what it writes: the plaintext client is told which key it needs, and how.
          const keyId = process.env.PAYLOAD_KEYS!.split(':')[0];
          for (const [what, text] of [
            ['result', said.result],
            ['query answer', said.answer],
          ] as const) {
            expect(text).toBe(
              `EncryptedPayloadUnreadableError: The ${what} of workflow evaluateDecision:${key}-clear is encrypted ` +
                `with key "${keyId}", and this Client cannot decrypt it. Fix: ${fix}, with a keyring that holds that key.`,
            );
          }
        },
        { dataConverter: encryptingConverter() },
      ),
    90_000,
  );

  it('type-checks a consumer with node16 resolution, and refuses a wrong one', async () => {
    const good = path.join(dir, 'good.ts');
    writeFileSync(good, CONSUMER);
    expect(await tscAsConsumer(good, { cwd: dir })).toBe('');

    const bad = path.join(dir, 'bad.ts');
    writeFileSync(bad, CONSUMER.replace("operation: 'text-to-video'", "operation: 'text-to-sound'"));
    expect(await tscAsConsumer(bad, { cwd: dir })).toMatch(/bad\.ts\(\d+,\d+\): error TS2322/);
  }, 60_000);
});
