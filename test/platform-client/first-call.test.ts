// The worker's first call against a real emulator: the model list and the balance with a good key, a
// refusal naming no secret with a bad one, and only warnings when the platform cannot be reached.
import { checkFirstCall } from '../../src/platform-client/client';
import { ConfigError } from '../../src/platform-client/config';
import { getFreePort } from '../../src/devserver/processes';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.close());

describe('the first call', () => {
  it('lists the models and reads the balance with a good key', async () => {
    const report = await checkFirstCall(emulator.client());
    expect(report.models).toBeGreaterThanOrEqual(5);
    expect(report.availableBalance).toMatch(/^\d+$/);
    expect(report.warnings).toEqual([]);
  });

  it('refuses a bad key with a clear message that does not hold it', async () => {
    const apiKey = 'sk-wrong-0123456789abcdef';
    const err = await checkFirstCall(emulator.client({ apiKey })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).toContain("refused the worker's API key on its first call (GET /v1/models: HTTP 401");
    expect(message).toContain('PLATFORM_API_KEY');
    expect(message).not.toContain(apiKey);
  });

  it('starts anyway, with warnings, when the platform cannot be reached', async () => {
    const port = await getFreePort();
    const report = await checkFirstCall(emulator.client({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1_000 }));
    expect(report.models).toBeUndefined();
    expect(report.warnings).toHaveLength(2);
    expect(report.warnings[0]).toContain('could not list the models');
  });
});
