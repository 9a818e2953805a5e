// The ports and data of `npm start`'s dev server: defaults, and a refusal naming the variable and the rule.
import path from 'node:path';
import { loadDevServerPorts } from '../../src/config/settings';
import { findProjectRoot } from '../../src/config/settings';
import { ConfigError } from '../../src/platform-client/config';

describe('loadDevServerPorts', () => {
  it("defaults to 7233, 8233 and the checkout's .data/, and reads each variable", () => {
    expect(loadDevServerPorts({})).toEqual({
      TEMPORAL_DEV_PORT: 7233,
      TEMPORAL_DEV_UI_PORT: 8233,
      TEMPORAL_DEV_DATA_DIR: path.join(findProjectRoot(), '.data'),
    });
    expect(
      loadDevServerPorts({
        TEMPORAL_DEV_PORT: '17233',
        TEMPORAL_DEV_UI_PORT: '18233',
        TEMPORAL_DEV_DATA_DIR: 'elsewhere',
      }),
    ).toEqual({
      TEMPORAL_DEV_PORT: 17233,
      TEMPORAL_DEV_UI_PORT: 18233,
      TEMPORAL_DEV_DATA_DIR: path.resolve('elsewhere'),
    });
  });

  it.each([
    ['TEMPORAL_DEV_PORT', 'abc'],
    ['TEMPORAL_DEV_PORT', '0'],
    ['TEMPORAL_DEV_UI_PORT', '70000'],
    ['TEMPORAL_DEV_UI_PORT', '80.5'],
    ['TEMPORAL_DEV_DATA_DIR', '   '],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(() => loadDevServerPorts({ [name]: value })).toThrow(ConfigError);
    expect(() => loadDevServerPorts({ [name]: value })).toThrow(name);
  });
});
