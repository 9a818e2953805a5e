// The pinned versions of the production topology (test/deploy/compose.test.ts keeps docker-compose.yml on them); where
// each program comes from is ./temporal-programs.ts.

/** The server and its SQL tool: the newest release that builds with these machines' Go 1.26.8 (later need 1.26.10). */
export const TEMPORAL_SERVER_VERSION = '1.32.1';

export const TEMPORAL_UI_VERSION = '2.55.0';

/** The operator's CLI: 1.6 and later cannot be built from the Go module proxy (docs/starter.md#temporal-programs). */
export const TEMPORAL_CLI_VERSION = '1.5.1';

/** Debian's PostgreSQL (bookworm ships 15); the server's `postgres12` plugin supports 12 and later. */
export const POSTGRES_MAJOR = 15;
