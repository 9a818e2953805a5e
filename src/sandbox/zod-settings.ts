// zod as the workflow sandbox needs it, set before any schema is built (see ./preload.ts). zod's default memoizer,
// for cyclic objects, rewrites each container schema's parse function on first use, which throws on the schemas the
// SDK froze; JSON inputs hold no cycle. Clients and activities keep zod's default.
import { z, type core } from 'zod';

const noCycles: core.$ZodMemoizer = {
  attach: () => undefined,
  guard: () => undefined,
  alloc: (_schema, _payload, empty) => empty,
};

z.config({ memoizer: noCycles });
