import { z } from 'zod';
import registryFile from './model-registry.json';
import { ImageToVideoRequest, TextToVideoRequest } from './platform/media';

export const OUTPUT_KINDS = ['image', 'video', 'audio'] as const;
export type OutputKind = (typeof OUTPUT_KINDS)[number];

const RESERVED_SEGMENTS: readonly string[] = ['task-result'];

/** A model as one URL path segment (never "." or ".."). */
export const ModelName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
    error: 'must be one URL path segment: letters, digits, ".", "-" and "_", starting with a letter or digit',
  })
  .refine((m) => !RESERVED_SEGMENTS.includes(m), { error: 'is the task-result endpoint, not a model' });

/**
 * Bounds of a body without a schema of its own: it travels in the workflow and every submit's activity input,
 * so large inputs go by URL. Characters are UTF-16 code units of the JSON; nodes count every value.
 */
export const ASYNC_BODY_BOUNDS = { maxChars: 256 * 1024, maxDepth: 16, maxNodes: 5_000 };

export function jsonBoundsProblem(value: unknown, bounds: typeof ASYNC_BODY_BOUNDS): string | undefined {
  let nodes = 0;
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 1 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (++nodes > bounds.maxNodes) return `must hold at most ${bounds.maxNodes} values in all`;
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'number' && !Number.isFinite(v)) return 'must hold only finite numbers';
      continue;
    }
    if (depth > bounds.maxDepth) return `must be nested at most ${bounds.maxDepth} levels deep`;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push({ v: child, depth: depth + 1 });
  }
  const chars = JSON.stringify(value)?.length ?? 0;
  if (chars > bounds.maxChars)
    return `must be at most ${bounds.maxChars} characters as JSON (it is ${chars}); pass large inputs by URL`;
  return undefined;
}

export const AsyncBody = z.record(z.string(), z.unknown()).superRefine((body, ctx) => {
  const problem = jsonBoundsProblem(body, ASYNC_BODY_BOUNDS);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
export type AsyncBody = z.infer<typeof AsyncBody>;

export const AsyncSubmitRequest = z.strictObject({ path: ModelName, body: AsyncBody });
export type AsyncSubmitRequest = z.input<typeof AsyncSubmitRequest>;

const BUILT_IN_BODIES = { 'image-to-video': ImageToVideoRequest, 'text-to-video': TextToVideoRequest } as const;

const Kinds = z.array(z.enum(OUTPUT_KINDS)).min(1).max(3);

const ModelEntry = z
  .strictObject({
    description: z.string().max(500).optional(),
    example: z.boolean().default(false),
    path: ModelName,
    builtIn: z.enum(Object.keys(BUILT_IN_BODIES) as [keyof typeof BUILT_IN_BODIES]).optional(),
    body: z.record(z.string(), z.unknown()).optional(),
    outputs: Kinds,
    /** What one task costs, in 1/10000 USD, for budget-gated jobs; without it such jobs must give `cost`. */
    price: z.strictObject({ perTask: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }).optional(),
    quota: z.string().min(1).max(128).optional(),
  })
  .refine((e) => !(e.builtIn && e.body), { path: ['body'], error: 'cannot be given with builtIn' });

export const ModelRegistryFile = z.strictObject({
  $comment: z.string().optional(),
  passThrough: z
    .strictObject({
      $comment: z.string().optional(),
      prefixes: z.array(z.string().min(1).max(64)).max(100).default([]),
      outputs: Kinds.default([...OUTPUT_KINDS]),
    })
    .prefault({}),
  models: z.record(ModelName, ModelEntry),
});

export type ResolvedModel = Omit<z.output<typeof ModelEntry>, 'body' | 'price'> & {
  model: string;
  passThrough: boolean;
  pricePerTask?: number;
  hasSchema: boolean;
};

export class ModelRegistry {
  /** Plain objects, not Maps: preloaded modules are walked and frozen by property (src/sandbox). */
  private readonly models: Record<string, ResolvedModel> = {};
  private readonly schemas: Record<string, z.ZodType> = {};
  readonly passThroughPrefixes: readonly string[];
  private readonly passThroughOutputs: OutputKind[];

  constructor(file: unknown) {
    const parsed = ModelRegistryFile.parse(file);
    this.passThroughPrefixes = parsed.passThrough.prefixes;
    this.passThroughOutputs = parsed.passThrough.outputs;
    for (const [model, { body, price, ...entry }] of Object.entries(parsed.models)) {
      let schema: z.ZodType | undefined = entry.builtIn ? BUILT_IN_BODIES[entry.builtIn] : undefined;
      if (body) {
        try {
          schema = z.fromJSONSchema(body);
        } catch (err) {
          throw new Error(`Model registry: models.${model}.body is not a JSON Schema zod reads: ${String(err)}`);
        }
      }
      if (schema) this.schemas[model] = schema;
      this.models[model] = {
        ...entry,
        model,
        passThrough: false,
        pricePerTask: price?.perTask,
        hasSchema: schema !== undefined,
      };
    }
  }

  list(): ResolvedModel[] {
    return Object.values(this.models);
  }

  resolve(model: string): ResolvedModel | undefined {
    if (Object.hasOwn(this.models, model)) return this.models[model];
    if (!this.passThroughPrefixes.some((p) => model.startsWith(p))) return undefined;
    return {
      model,
      path: model,
      outputs: this.passThroughOutputs,
      passThrough: true,
      example: false,
      hasSchema: false,
    };
  }

  forPath(segment: string): ResolvedModel | undefined {
    if (!ModelName.safeParse(segment).success) return undefined;
    const listed = Object.values(this.models).find((m) => m.path === segment);
    return listed ? this.resolve(listed.model) : this.resolve(segment);
  }

  unknownRule(model: string): string {
    const known = Object.keys(this.models).join(', ');
    const pass = this.passThroughPrefixes.length
      ? ` nor starts with a pass-through prefix (${this.passThroughPrefixes.map((p) => JSON.stringify(p)).join(', ')})`
      : ' and the registry allows no pass-through';
    return `"${model}" is not in the model registry (${known})${pass}`;
  }

  bodyIssues(model: string, body: unknown): z.core.$ZodIssue[] {
    const schema = Object.hasOwn(this.schemas, model) ? this.schemas[model] : undefined;
    if (!schema) return [];
    const parsed = schema.safeParse(body);
    return parsed.success ? [] : parsed.error.issues;
  }
}

export const MODEL_REGISTRY = new ModelRegistry(registryFile);
