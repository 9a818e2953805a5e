// The Web UI as an operator sees it, in real headless Chromium (Debian's, driven by playwright-core):
// a running mediaGeneration shows its summary (what it is for) and its current details (where it
// stands). The screenshot is kept in artifacts/screenshots/.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { mediaProgressQuery, startWorkflow } from '@platform-ops/client';
import { findOrInstallChromium } from '../helpers/browser';
import { uniqueId, withWorker } from '../helpers/temporal';
import { testEnv } from '../setup/shared';

const SCREENSHOTS = path.resolve(__dirname, '../../artifacts/screenshots');

let browser: Browser;
beforeAll(async () => {
  const executablePath = await findOrInstallChromium((line) => process.stderr.write(`[web-ui test] ${line}\n`));
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
}, 300_000);
afterAll(() => browser?.close());

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('Web UI', () => {
  it(
    'shows a running generation with its summary and current status',
    () =>
      withWorker('web-ui', async (ctx) => {
        const { handle, workflowId } = await startWorkflow(
          ctx.client,
          'mediaGeneration',
          {
            operation: 'text-to-video',
            // Emulated 10 minutes at the test emulator's speed 10: a minute of real time, cancelled below.
            request: { prompt: 'a lighthouse at night [emulator:duration=600000]', duration: 5 },
            memberId: 'member-ui',
          },
          { taskQueue: ctx.taskQueue, idempotencyKey: uniqueId('web-ui') },
        );
        try {
          await waitFor(
            async () => (await handle.query(mediaProgressQuery)).status === 'PROCESSING',
            30_000,
            'PROCESSING',
          );
          const { taskId } = await handle.query(mediaProgressQuery);
          const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
          const url = `${testEnv('temporalUiUrl')}/namespaces/${ctx.namespace}/workflows/${encodeURIComponent(workflowId)}`;
          await page.goto(url);
          try {
            // Its "User Metadata" tab: the summary, and the current details the worker answers.
            await page.getByText('User Metadata').first().click({ timeout: 30_000 });
            // The UI renders each markdown block in a sandboxed iframe of its own: look in every frame. The UI
            // 2.55 renders a running workflow's blocks anew as it refreshes: a frame may be gone while looked in.
            const shown = (text: string, exact = false) =>
              waitFor(
                async () => {
                  for (const frame of page.frames()) {
                    const count = await frame
                      .getByText(text, { exact })
                      .filter({ visible: true })
                      .count()
                      .catch((err: Error) => (/detached/i.test(err.message) ? 0 : Promise.reject(err)));
                    if (count) return true;
                  }
                  return false;
                },
                30_000,
                `"${text}" on the page`,
              );
            await shown('text-to-video, 5 s, member member-ui', true);
            await shown('PROCESSING', true);
            await shown(`taskId: ${taskId!}`);
          } finally {
            // Kept whether the checks pass or not: on a failure it shows what the page did show.
            mkdirSync(SCREENSHOTS, { recursive: true });
            await page.screenshot({ path: path.join(SCREENSHOTS, 'web-ui-media-generation.png'), fullPage: true });
          }
        } finally {
          await handle.cancel();
        }
      }),
    120_000,
  );
});
