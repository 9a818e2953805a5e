// zod as the workflow sandbox needs it, set before any schema is built (see ./preload.ts). zod's default memoizer
// follows cyclic objects by rewriting each container schema's parse function on first use, which throws on the
// schemas the SDK froze. Workflow inputs arrive as JSON, which cannot hold a cycle, so the workflow side builds
// its schemas without it. Clients and activities (plain Node) keep zod's default.
import { z, type core } from 'zod';

const noCycles: core.$ZodMemoizer = {
  attach: () => undefined,
  guard: () => undefined,
  alloc: (_schema, _payload, empty) => empty,
};

z.config({ memoizer: noCycles });
