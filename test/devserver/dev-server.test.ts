import { Connection } from '@temporalio/client';
import { execFile, spawn } from 'child_process';
import { existsSync, promises as fs } from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import { TEMPORAL_SERVER_VERSION } from '../../src/devserver/versions';
import {
  findOrBuildClusterBinaries,
  findOrBuildTemporalCli,
  type ClusterBinaries,
} from '../../src/devserver/temporal-programs';
import { devServerDir, isDevServerOf, startDevServer, type DevServerHandle } from '../../src/devserver/dev-server';
import { getFreePort, isAlive, listProcesses } from '../../src/devserver/processes';

const execFileAsync = promisify(execFile);

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('isDevServerOf', () => {
  const dbFile = '/work/.data/temporal.sqlite';
  it('knows the server and the UI server on a data file by their --root, and the CLI dev server of before', () => {
    const dir = devServerDir(dbFile);
    expect(dir).toBe('/work/.data/temporal.sqlite.server');
    expect(isDevServerOf(dbFile, `/x/server --root ${dir} --allow-no-auth start`)).toBe(true);
    expect(isDevServerOf(dbFile, `/x/server --root ${dir}/ui-server --env development start`)).toBe(true);
    expect(isDevServerOf(dbFile, `temporal server start-dev --ip 127.0.0.1 --db-filename ${dbFile} --port 1`)).toBe(
      true,
    );
    expect(isDevServerOf(dbFile, `/x/server --root ${dir}2 --allow-no-auth start`)).toBe(false);
    expect(isDevServerOf(dbFile, `/x/server --root /elsewhere.server --allow-no-auth start`)).toBe(false);
    expect(isDevServerOf(dbFile, `vim ${dbFile}`)).toBe(false);
  });
});

describe('startDevServer', () => {
  let binaries: ClusterBinaries;
  let cliPath: string;
  let server: DevServerHandle | undefined;
  let tmp: string;

  beforeAll(async () => {
    // Cached builds normally; on a fresh checkout with only Go these build (minutes).
    binaries = await findOrBuildClusterBinaries(() => undefined);
    cliPath = await findOrBuildTemporalCli();
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dev-server-test-'));
  }, 30 * 60_000);

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

  const cli = async (args: string[], address: string, namespace: string) =>
    (await execFileAsync(cliPath, [...args, '--address', address, '--namespace', namespace])).stdout;

  it('starts a headless in-memory server with custom search attributes, and stops it', async () => {
    const port = await getFreePort();
    const logs: string[] = [];
    server = await startDevServer({
      binaries,
      port,
      headless: true,
      namespace: 'devserver-test',
      searchAttributes: { PlatformOperation: 'Keyword', PlatformCostEstimate: 'Int' },
      log: (m) => logs.push(m),
    });
    expect(server.address).toBe(`127.0.0.1:${port}`);
    expect(server.uiUrl).toBeUndefined();
    expect(server.namespace).toBe('devserver-test');

    // The operator's client, the CLI 1.5.1, sees the attributes in both namespaces.
    for (const namespace of ['devserver-test', 'default']) {
      const stdout = await cli(['operator', 'search-attribute', 'list', '--output', 'json'], server.address, namespace);
      const listed = JSON.parse(stdout) as { customAttributes: Record<string, string> };
      expect(listed.customAttributes).toMatchObject({
        PlatformOperation: 'INDEXED_VALUE_TYPE_KEYWORD',
        PlatformCostEstimate: 'INDEXED_VALUE_TYPE_INT',
      });
    }
    // The server 1.32.1 on SQLite, one shard.
    const { serverVersion } = await systemInfo(server.address);
    expect(serverVersion).toBe(TEMPORAL_SERVER_VERSION);

    // Eager activity dispatch is on, as on the production cluster's server (DEV_SERVER_DYNAMIC_CONFIG).
    const environ = (await fs.readFile(`/proc/${server.pid}/environ`, 'utf8')).split('\0');
    const dynamicConfigFile = environ.find((v) => v.startsWith('DYNAMIC_CONFIG_FILE_PATH='))!.split('=')[1];
    expect(environ).toEqual(expect.arrayContaining(['DB=sqlite', 'NUM_HISTORY_SHARDS=1', 'SQLITE_MODE=memory']));
    const dynamicConfig = JSON.parse(await fs.readFile(dynamicConfigFile, 'utf8')) as Record<string, unknown>;
    expect(dynamicConfig['system.enableActivityEagerExecution']).toEqual([{ value: true, constraints: {} }]);
    // One partition per task queue, so a queue's rate limit is one bucket (docs/rate-limits.md).
    const partitions = await cli(
      ['task-queue', 'list-partition', '--task-queue', 'any-queue', '--output', 'json'],
      server.address,
      server.namespace,
    );
    const listedPartitions = JSON.parse(partitions) as Record<string, unknown[]>;
    expect(listedPartitions.activityTaskQueuePartitions).toHaveLength(1);
    expect(listedPartitions.workflowTaskQueuePartitions).toHaveLength(1);

    const { pid } = server;
    await server.stop();
    await server.stop(); // idempotent
    expect(() => process.kill(pid, 0)).toThrow();
    expect(await portIsFree(port)).toBe(true);
    // In memory, its folder goes with it.
    expect(existsSync(path.dirname(dynamicConfigFile))).toBe(false);
    expect(logs.join('\n')).toContain('Temporal dev server ready');
  }, 120_000);

  it("keeps its data in a file, the CLI's dev server's too, with the Web UI, and stops both processes", async () => {
    const dbFile = path.join(tmp, 'data', 'temporal.sqlite');
    const port = await getFreePort();
    // A file the CLI's dev server (server 1.29.1) wrote, with a workflow in it.
    await fs.mkdir(path.dirname(dbFile), { recursive: true });
    const cliServer = spawn(
      cliPath,
      ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--db-filename', dbFile],
      { stdio: 'ignore' },
    );
    try {
      await waitUntil(() => systemInfo(`127.0.0.1:${port}`).then(() => true), 30_000);
      await cli(
        ['workflow', 'start', '--type', 'anything', '--task-queue', 'nobody', '--workflow-id', 'written-by-the-cli'],
        `127.0.0.1:${port}`,
        'default',
      );
    } finally {
      cliServer.kill('SIGTERM');
      await new Promise((resolve) => cliServer.once('exit', resolve));
    }

    const uiPort = await getFreePort();
    const logs: string[] = [];
    server = await startDevServer({ binaries, port, uiPort, dbFile, log: (m) => logs.push(m) });
    expect(logs.join('\n')).toMatch(/Updated the schema of .*temporal\.sqlite/);
    const described = await cli(
      ['workflow', 'describe', '--workflow-id', 'written-by-the-cli', '--output', 'json'],
      server.address,
      'default',
    );
    expect(JSON.parse(described)).toMatchObject({
      workflowExecutionInfo: { status: 'WORKFLOW_EXECUTION_STATUS_RUNNING' },
    });
    expect((await fetch(server.uiUrl!)).ok).toBe(true);
    const ui = (await listProcesses()).find((p) => isDevServerOf(dbFile, p.args) && p.pid !== server!.pid);
    expect(ui?.args).toContain('ui-server');

    await server.stop();
    server = undefined;
    expect(isAlive(ui!.pid)).toBe(false);
    expect(await portIsFree(uiPort)).toBe(true);

    // A second start on the same file: the schema is current, the workflow still there.
    server = await startDevServer({ binaries, port, headless: true, dbFile });
    const listed = await cli(['workflow', 'list', '--output', 'json'], server.address, 'default');
    expect(listed).toContain('written-by-the-cli');
  }, 180_000);

  it('refuses a busy port with a clear message', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      await expect(startDevServer({ binaries, port, headless: true })).rejects.toThrow(
        `Port ${port} is already in use: is another Temporal server running?`,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('refuses a search attribute type the server does not have, before starting anything', async () => {
    const attempt = startDevServer({
      binaries,
      port: await getFreePort(),
      headless: true,
      searchAttributes: { Broken: 'NoSuchType' as 'Keyword' },
    });
    await expect(attempt).rejects.toThrow('Search attribute Broken: unknown type NoSuchType');
  });

  it('refuses a busy metrics port, which the server would only log', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port: metricsPort } = blocker.address() as net.AddressInfo;
    try {
      const attempt = startDevServer({ binaries, port: await getFreePort(), headless: true, metricsPort });
      await expect(attempt).rejects.toThrow(`Port ${metricsPort} (metrics) is already in use`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("reports the server's output when it exits during startup", async () => {
    const server = path.join(tmp, 'failing-server');
    await fs.writeFile(server, '#!/bin/sh\necho "cannot start: $*"\nexit 3\n', { mode: 0o755 });
    const attempt = startDevServer({ binaries: { ...binaries, server }, port: await getFreePort(), headless: true });
    await expect(attempt).rejects.toThrow(/exited during startup \(exit code 3\)[\s\S]*cannot start: --root/);
  });
});

async function systemInfo(address: string) {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    return await connection.workflowService.getSystemInfo({});
  } finally {
    await connection.close();
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
