// `deploy …`: roll a new build of the worker beside the running one, then retire the old one once it has drained
// (docs/versioning.md). Starting and stopping the builds' workers is the process manager's part.
import type { Command } from 'commander';
import {
  DEPLOYMENT_NAME,
  deploymentVersions,
  retireVersion,
  setCurrentVersion,
  VersionInUse,
} from '../../worker-deployment';
import { CliError, ExitCode, tableRow, withStarter, type Out } from '../../cli/command';

const IDENTITY = 'platform-ops-starter deploy';
const MAX_WAIT_MINUTES = 24 * 60;

function waitMinutes(text: string): number {
  const minutes = Number(text);
  if (!Number.isInteger(minutes) || minutes < 0 || minutes > MAX_WAIT_MINUTES) {
    throw new CliError(
      `--wait: ${text} is not a whole number of minutes from 0 to ${MAX_WAIT_MINUTES}.`,
      ExitCode.Usage,
    );
  }
  return minutes;
}

export function addDeployCommands(program: Command, out: Out): void {
  const deploy = program.command('deploy').description(`roll builds of the Worker Deployment ${DEPLOYMENT_NAME}`);
  deploy
    .command('status')
    .description('each build: current, draining (pinned runs still open), drained or inactive')
    .action(() =>
      withStarter(async ({ client, settings }) => {
        const versions = await deploymentVersions(client, settings.namespace);
        if (versions.length === 0) {
          out(`No build of ${DEPLOYMENT_NAME} has polled this namespace yet: is a versioned worker running?`);
          return;
        }
        const widths = [Math.max(8, ...versions.map((v) => v.buildId.length)), 9];
        out(tableRow(widths, ['BUILD', 'STATUS', 'CREATED']));
        for (const v of versions)
          out(tableRow(widths, [v.buildId, v.status.toLowerCase(), v.createdAt?.toISOString() ?? '']));
      }),
    );
  deploy
    .command('current <build-id>')
    .description('make a build current: new runs and AUTO_UPGRADE runs go to it, PINNED runs stay where they are')
    .action((buildId: string) =>
      withStarter(async ({ client, settings }) => {
        const known = await deploymentVersions(client, settings.namespace);
        if (!known.some((v) => v.buildId === buildId)) {
          throw new CliError(
            `No build ${buildId} has polled yet (known: ${known.map((v) => v.buildId).join(', ') || 'none'}): ` +
              'start its workers first.',
            ExitCode.Usage,
          );
        }
        const before = await setCurrentVersion(client, settings.namespace, buildId, IDENTITY);
        out(
          `${buildId} is current${before && before !== buildId ? ` (was ${before}, now draining its pinned runs)` : ''}.`,
        );
      }),
    );
  deploy
    .command('retire <build-id>')
    .description('once a build has drained and its workers are stopped, delete it from the deployment')
    .option('--wait <minutes>', 'how long to wait for it to drain and for its workers to stop', '15')
    .action((buildId: string, opts: { wait: string }) => {
      const minutes = waitMinutes(opts.wait);
      return withStarter(async ({ client, settings }) => {
        await retireVersion(client, settings.namespace, buildId, {
          waitMs: minutes * 60_000,
          identity: IDENTITY,
          say: out,
        }).catch((err: Error) => {
          throw new CliError(err.message, err instanceof VersionInUse ? ExitCode.Usage : ExitCode.Unavailable);
        });
        out(`${buildId} is retired.`);
      });
    });
}
