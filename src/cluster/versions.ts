// The pinned versions of the production topology (`npm run cluster`, docker-compose.yml and the
// cluster test suite all use these; test/deploy/compose.test.ts keeps the Compose file on them).

/**
 * Temporal server and its SQL schema tool. v1.32.1 is the newest release that builds with the Go
 * (1.26.8) these machines have: later patch releases ask for Go 1.26.10.
 */
export const TEMPORAL_SERVER_VERSION = '1.32.1';

/** The Temporal Web UI server, the release that goes with server 1.32. */
export const TEMPORAL_UI_VERSION = '2.55.0';

/** Debian's PostgreSQL (bookworm ships 15); the server's `postgres12` plugin supports 12 and later. */
export const POSTGRES_MAJOR = 15;

export const GO_PACKAGES = {
  server: `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
  sqlTool: `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
  uiServer: `github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_VERSION}`,
} as const;
