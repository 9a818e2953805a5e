// Templates and products: fixed fixtures (25 templates so pagination is exercised, a handful of GPU
// and CPU products with every spec field) and their list routes with filters and cursor pagination.
import type { FastifyInstance } from 'fastify';
import type { PlatformPaths } from '../../../src/platform/paths';
import { ListProductsRequest, ListTemplatesRequest, PRODUCT_FILTER_PARAMS } from '../../../src/platform/schemas/gpu';
import type { ValidationIssue } from '../../../src/platform/validation';
import { describeZodIssues } from '../../../src/platform/validation';
import { sendInvalid } from './http';
import type { Caller } from './types';

const DEFAULT_TEMPLATE_PAGE = 20;

// ── Fixtures ───────────────────────────────────────────────────────────────
interface TemplateSeed {
  name: string;
  image: string;
  type: 'instance' | 'serverless';
  tags: string[];
  port: number;
  cuda: string;
}

const TEMPLATE_SEEDS: TemplateSeed[] = [
  {
    name: 'PyTorch 2.4',
    image: 'pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime',
    type: 'instance',
    tags: ['pytorch'],
    port: 8888,
    cuda: '12.4',
  },
  {
    name: 'PyTorch 2.1',
    image: 'pytorch/pytorch:2.1.2-cuda12.1-cudnn8-runtime',
    type: 'instance',
    tags: ['pytorch'],
    port: 8888,
    cuda: '12.1',
  },
  {
    name: 'TensorFlow 2.16',
    image: 'tensorflow/tensorflow:2.16.1-gpu-jupyter',
    type: 'instance',
    tags: ['tensorflow'],
    port: 8888,
    cuda: '12.3',
  },
  {
    name: 'Jupyter Lab CUDA 12',
    image: 'jupyter/base-notebook:cuda12',
    type: 'instance',
    tags: ['jupyter'],
    port: 8888,
    cuda: '12.0',
  },
  {
    name: 'Ubuntu 22.04 CUDA 12.1',
    image: 'nvidia/cuda:12.1.1-devel-ubuntu22.04',
    type: 'instance',
    tags: ['base'],
    port: 22,
    cuda: '12.1',
  },
  {
    name: 'Ubuntu 20.04 CUDA 11.8',
    image: 'nvidia/cuda:11.8.0-devel-ubuntu20.04',
    type: 'instance',
    tags: ['base'],
    port: 22,
    cuda: '11.8',
  },
  {
    name: 'Stable Diffusion WebUI',
    image: 'sdwebui/automatic1111:1.10',
    type: 'instance',
    tags: ['image', 'sd'],
    port: 7860,
    cuda: '12.1',
  },
  {
    name: 'ComfyUI',
    image: 'comfyanonymous/comfyui:latest',
    type: 'instance',
    tags: ['image', 'workflow'],
    port: 8188,
    cuda: '12.1',
  },
  { name: 'Fooocus', image: 'fooocus/fooocus:2.5', type: 'instance', tags: ['image'], port: 7865, cuda: '12.1' },
  {
    name: 'vLLM OpenAI server',
    image: 'vllm/vllm-openai:v0.6.3',
    type: 'serverless',
    tags: ['llm', 'openai'],
    port: 8000,
    cuda: '12.4',
  },
  {
    name: 'Text Generation Inference',
    image: 'huggingface/text-generation-inference:2.4',
    type: 'serverless',
    tags: ['llm'],
    port: 80,
    cuda: '12.4',
  },
  { name: 'Ollama', image: 'ollama/ollama:0.4', type: 'instance', tags: ['llm'], port: 11434, cuda: '12.2' },
  {
    name: 'Text Generation WebUI',
    image: 'oobabooga/text-generation-webui:latest',
    type: 'instance',
    tags: ['llm'],
    port: 7860,
    cuda: '12.1',
  },
  {
    name: 'SGLang server',
    image: 'lmsysorg/sglang:v0.3.5',
    type: 'serverless',
    tags: ['llm'],
    port: 30000,
    cuda: '12.4',
  },
  {
    name: 'Whisper ASR',
    image: 'onerahmet/openai-whisper-asr-webservice:latest-gpu',
    type: 'serverless',
    tags: ['audio'],
    port: 9000,
    cuda: '12.1',
  },
  { name: 'XTTS v2', image: 'coqui/xtts:v2', type: 'serverless', tags: ['audio', 'tts'], port: 8020, cuda: '11.8' },
  {
    name: 'Kohya SS trainer',
    image: 'kohya/kohya-ss:24.1',
    type: 'instance',
    tags: ['training', 'image'],
    port: 7860,
    cuda: '12.1',
  },
  {
    name: 'Axolotl fine-tuning',
    image: 'winglian/axolotl:main-py3.11-cu121',
    type: 'instance',
    tags: ['training', 'llm'],
    port: 8888,
    cuda: '12.1',
  },
  {
    name: 'Unsloth notebook',
    image: 'unsloth/unsloth:latest',
    type: 'instance',
    tags: ['training', 'llm'],
    port: 8888,
    cuda: '12.1',
  },
  {
    name: 'Triton Inference Server',
    image: 'nvcr.io/nvidia/tritonserver:24.08-py3',
    type: 'serverless',
    tags: ['inference'],
    port: 8000,
    cuda: '12.6',
  },
  {
    name: 'RAPIDS notebooks',
    image: 'rapidsai/notebooks:24.10-cuda12.5-py3.11',
    type: 'instance',
    tags: ['data'],
    port: 8888,
    cuda: '12.5',
  },
  {
    name: 'VS Code server CUDA',
    image: 'codercom/code-server:cuda12',
    type: 'instance',
    tags: ['ide'],
    port: 8080,
    cuda: '12.0',
  },
  {
    name: 'Demo community SDXL',
    image: 'demo/sdxl-community:1.0',
    type: 'instance',
    tags: ['image', 'community'],
    port: 7860,
    cuda: '12.1',
  },
  {
    name: 'Demo community LLM chat',
    image: 'demo/llm-chat:0.3',
    type: 'serverless',
    tags: ['llm', 'community'],
    port: 8000,
    cuda: '12.4',
  },
  {
    name: 'Demo private worker',
    image: 'registry.example.com/demo/worker:7',
    type: 'serverless',
    tags: ['private'],
    port: 8000,
    cuda: '12.4',
  },
];

/** 2026-01-01T00:00:00Z; template timestamps are spread over the weeks after it. */
const CATALOG_EPOCH = 1_767_225_600;

const TEMPLATES: readonly Record<string, unknown>[] = TEMPLATE_SEEDS.map((seed, i) => {
  // The last three belong to the demo user: two community templates and one private one.
  const visibility = i >= 24 ? 'private' : i >= 22 ? 'community' : 'public';
  const mine = visibility !== 'public';
  const id = `tpl-${String(i + 1).padStart(3, '0')}`;
  return {
    id,
    owner_id: mine ? 'user-demo' : 'user-platform',
    name: seed.name,
    type: seed.type,
    visibility,
    image: seed.image,
    registry_auth_id: visibility === 'private' ? 'rauth-demo-1' : '',
    command: '',
    entrypoint: '',
    rootfs_size_gb: 30 + (i % 5) * 10,
    ports: [{ protocol: seed.port === 22 ? 'tcp' : 'http', port: seed.port }],
    envs: [{ key: 'TEMPLATE_ID', value: id }],
    metadata: {
      readme: `# ${seed.name}\n\nStarts ${seed.image}.`,
      logo: `https://static.example.com/logos/${seed.tags[0]}.png`,
      description: `${seed.name} on CUDA ${seed.cuda}`,
      author: mine ? 'Demo member' : 'Platform team',
      tags: seed.tags,
    },
    min_cuda_version: seed.cuda,
    created_at: CATALOG_EPOCH + i * 86_400,
    updated_at: CATALOG_EPOCH + i * 86_400 + 3_600,
    member_id: mine ? 'member-demo' : 'member-platform',
  };
});

interface ProductSeed {
  id: string;
  name: string;
  type: 'gpu' | 'cpu';
  category: 'instance' | 'serverless';
  regions: string[];
  gpu?: { specId: string; name: string; memoryGb: number; max: number; available: number };
  cpu: number;
  memoryGb: number;
  rootfsMaxGb: number;
  /** 1/10000 USD per hour (per card for GPUs). */
  hourly: number;
  methods: ('postpaid' | 'prepaid' | 'spot')[];
  inventory: string;
}

const PRODUCT_SEEDS: ProductSeed[] = [
  {
    id: 'gpu-rtx4090-24g',
    name: 'RTX 4090 24GB',
    type: 'gpu',
    category: 'instance',
    regions: ['us-east-1', 'eu-west-1'],
    gpu: { specId: 'rtx4090', name: 'NVIDIA GeForce RTX 4090', memoryGb: 24, max: 8, available: 12 },
    cpu: 16,
    memoryGb: 62,
    rootfsMaxGb: 500,
    hourly: 6_900,
    methods: ['postpaid', 'prepaid', 'spot'],
    inventory: 'normal',
  },
  {
    id: 'gpu-a100-80g',
    name: 'A100 80GB',
    type: 'gpu',
    category: 'instance',
    regions: ['us-east-1', 'us-west-2'],
    gpu: { specId: 'a100-sxm4-80g', name: 'NVIDIA A100-SXM4-80GB', memoryGb: 80, max: 8, available: 5 },
    cpu: 24,
    memoryGb: 120,
    rootfsMaxGb: 1_000,
    hourly: 16_000,
    methods: ['postpaid', 'prepaid'],
    inventory: 'normal',
  },
  {
    id: 'gpu-h100-80g',
    name: 'H100 80GB',
    type: 'gpu',
    category: 'instance',
    regions: ['us-west-2'],
    gpu: { specId: 'h100-sxm5-80g', name: 'NVIDIA H100 80GB HBM3', memoryGb: 80, max: 8, available: 2 },
    cpu: 32,
    memoryGb: 240,
    rootfsMaxGb: 2_000,
    hourly: 25_000,
    methods: ['postpaid', 'prepaid'],
    inventory: 'low',
  },
  {
    id: 'gpu-l40s-48g',
    name: 'L40S 48GB',
    type: 'gpu',
    category: 'serverless',
    regions: ['eu-west-1', 'us-east-1'],
    gpu: { specId: 'l40s', name: 'NVIDIA L40S', memoryGb: 48, max: 4, available: 9 },
    cpu: 12,
    memoryGb: 96,
    rootfsMaxGb: 300,
    hourly: 9_900,
    methods: ['postpaid', 'spot'],
    inventory: 'normal',
  },
  {
    id: 'gpu-rtx3090-24g',
    name: 'RTX 3090 24GB',
    type: 'gpu',
    category: 'instance',
    regions: ['ap-southeast-1'],
    gpu: { specId: 'rtx3090', name: 'NVIDIA GeForce RTX 3090', memoryGb: 24, max: 4, available: 0 },
    cpu: 8,
    memoryGb: 32,
    rootfsMaxGb: 200,
    hourly: 2_900,
    methods: ['postpaid', 'spot'],
    inventory: 'soldOut',
  },
  {
    id: 'cpu-4c-16g',
    name: 'CPU 4 cores 16GB',
    type: 'cpu',
    category: 'instance',
    regions: ['us-east-1', 'eu-west-1', 'ap-southeast-1'],
    cpu: 4,
    memoryGb: 16,
    rootfsMaxGb: 200,
    hourly: 400,
    methods: ['postpaid', 'prepaid'],
    inventory: 'normal',
  },
  {
    id: 'cpu-8c-32g',
    name: 'CPU 8 cores 32GB',
    type: 'cpu',
    category: 'instance',
    regions: ['us-east-1', 'eu-west-1'],
    cpu: 8,
    memoryGb: 32,
    rootfsMaxGb: 400,
    hourly: 800,
    methods: ['postpaid', 'prepaid', 'spot'],
    inventory: 'normal',
  },
  {
    id: 'cpu-16c-64g',
    name: 'CPU 16 cores 64GB',
    type: 'cpu',
    category: 'serverless',
    regions: ['us-west-2'],
    cpu: 16,
    memoryGb: 64,
    rootfsMaxGb: 400,
    hourly: 1_600,
    methods: ['postpaid'],
    inventory: 'normal',
  },
];

interface Product {
  id: string;
  type: string;
  category: string;
  region_ids: string[];
  resource_spec: { cpu: number; memory_gb: number; rootfs: { max_gb: number } };
  billing_methods: string[];
  [field: string]: unknown;
}

const PRODUCTS: readonly Product[] = PRODUCT_SEEDS.map((p) => ({
  id: p.id,
  name: p.name,
  type: p.type,
  category: p.category,
  description: p.gpu
    ? `${p.gpu.name}, ${p.cpu} vCPU, ${p.memoryGb} GB RAM per card`
    : `${p.cpu} vCPU, ${p.memoryGb} GB RAM`,
  region_ids: p.regions,
  resource_spec: {
    gpu: p.gpu
      ? {
          spec_id: p.gpu.specId,
          name: p.gpu.name,
          memory_gb: p.gpu.memoryGb,
          min: 1,
          max: p.gpu.max,
          available: p.gpu.available,
          max_available: Math.min(p.gpu.max, p.gpu.available),
        }
      : null,
    cpu: p.cpu,
    memory_gb: p.memoryGb,
    rootfs: { min_gb: 10, max_gb: p.rootfsMaxGb, free_gb: 50 },
  },
  pricing: {
    precision: 1,
    postpaid: { base_price: p.hourly, final_price: Math.round(p.hourly * 0.9), unit: 'per_hour' },
    spot: p.methods.includes('spot')
      ? { base_price: Math.round(p.hourly * 0.5), final_price: Math.round(p.hourly * 0.45), unit: 'per_hour' }
      : null,
    prepaid: p.methods.includes('prepaid')
      ? [1, 3, 12].map((months) => ({
          spec_id: `${p.id}-${months}m`,
          duration_months: months,
          base_price: p.hourly * 24 * 30 * months,
          final_price: Math.round(p.hourly * 24 * 30 * months * (months >= 12 ? 0.7 : months >= 3 ? 0.8 : 0.85)),
        }))
      : [],
    storage_price_per_gb: 14,
  },
  billing_methods: p.methods,
  inventory_state: p.inventory,
  deployable: p.inventory !== 'soldOut',
  activity: { is_activity_product: p.id === 'gpu-rtx4090-24g', active: p.id === 'gpu-rtx4090-24g', purchasable: true },
}));

// ── Query handling ─────────────────────────────────────────────────────────
const NUMBER = /^-?\d+(\.\d+)?$/;

/** Query strings to the schema's types: numbers for numeric fields, booleans for flags; the rest stays. */
function convertQuery(
  query: Record<string, unknown>,
  numeric: ReadonlySet<string>,
  flags: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) {
    if (typeof v !== 'string') out[k] = v;
    else if (numeric.has(k)) {
      if (v === '') continue; // An empty number means "not given", as HTML forms send it.
      out[k] = NUMBER.test(v) ? Number(v) : v;
    } else if (flags.has(k)) out[k] = v === 'true' ? true : v === 'false' ? false : v;
    else out[k] = v;
  }
  return out;
}

const commaSet = (list: string | undefined): Set<string> | undefined =>
  list === undefined || list === ''
    ? undefined
    : new Set(
        list
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      );

/** Cursors are opaque to callers: an offset in a list, tagged so one list's cursor fails on another. */
const encodeCursor = (list: string, offset: number) => Buffer.from(`${list}:${offset}`).toString('base64url');

function decodeCursor(list: string, cursor: string | undefined, size: number): number | 'bad' {
  if (cursor === undefined || cursor === '') return 0;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^([a-z]+):(\d+)$/.exec(text);
  if (!m || m[1] !== list) return 'bad';
  const offset = Number(m[2]);
  return offset <= size ? offset : 'bad';
}

const BAD_CURSOR: ValidationIssue = {
  field: 'cursor',
  rule: 'is not a cursor this list handed out (use the next_cursor of the previous page)',
};

function page<T>(list: string, items: readonly T[], offset: number, limit: number) {
  const data = items.slice(offset, offset + limit);
  const has_more = offset + limit < items.length;
  return { data, next_cursor: has_more ? encodeCursor(list, offset + limit) : '', has_more };
}

const PRODUCT_QUERY_NAMES = Object.fromEntries(Object.entries(PRODUCT_FILTER_PARAMS).map(([key, name]) => [name, key]));

export function registerCatalogRoutes(app: FastifyInstance, deps: { paths: PlatformPaths }): void {
  const { paths } = deps;

  app.get(paths.listTemplates, (request, reply) => {
    const query = convertQuery(
      request.query as Record<string, unknown>,
      new Set(['limit']),
      new Set(['is_my_community']),
    );
    const parsed = ListTemplatesRequest.safeParse(query);
    if (!parsed.success) return sendInvalid(reply, describeZodIssues(parsed.error.issues));
    const q = parsed.data;
    const items = filterTemplates(q, request.caller);
    const offset = decodeCursor('tpl', q.cursor, items.length);
    if (offset === 'bad') return sendInvalid(reply, [BAD_CURSOR]);
    return reply.send(page('tpl', items, offset, q.limit || DEFAULT_TEMPLATE_PAGE));
  });

  app.get(paths.listProducts, (request, reply) => {
    const raw = request.query as Record<string, unknown>;
    // The wire names (PRODUCT_FILTER_PARAMS) map to the schema's keys; unknown names pass through so
    // the strict schema names them.
    const named: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(raw)) named[PRODUCT_QUERY_NAMES[name] ?? name] = value;
    const query = convertQuery(named, new Set(['cpuCores', 'memoryGb', 'rootfsGb', 'limit']), new Set());
    const parsed = ListProductsRequest.safeParse(query);
    if (!parsed.success) {
      return sendInvalid(
        reply,
        describeZodIssues(parsed.error.issues).map((i) => ({ ...i, field: wireName(i.field) })),
      );
    }
    const q = parsed.data;
    const items = filterProducts(q);
    const offset = decodeCursor('prd', q.cursor, items.length);
    if (offset === 'bad') return sendInvalid(reply, [BAD_CURSOR]);
    if (q.limit === undefined) return reply.send({ data: items.slice(offset) });
    return reply.send(page('prd', items, offset, q.limit === 0 ? items.length : q.limit));
  });
}

function wireName(field: string): string {
  return (PRODUCT_FILTER_PARAMS as Record<string, string>)[field] ?? field;
}

function filterTemplates(
  q: { name?: string; type?: string; visibilities?: string; member_ids?: string; is_my_community?: boolean },
  caller: Caller,
): readonly Record<string, unknown>[] {
  const name = q.name?.toLowerCase();
  const visibilities = commaSet(q.visibilities);
  const members = commaSet(q.member_ids);
  return TEMPLATES.filter(
    (t) =>
      (!name || String(t.name).toLowerCase().includes(name)) &&
      (!q.type || t.type === q.type) &&
      (!visibilities || visibilities.has(String(t.visibility))) &&
      (!members || members.has(String(t.member_id))) &&
      (!q.is_my_community || (t.visibility === 'community' && t.owner_id === caller.userId)),
  );
}

function filterProducts(q: {
  productType?: string;
  category?: string;
  cpuCores?: number;
  memoryGb?: number;
  rootfsGb?: number;
  billingMethod?: string;
  regionIds?: string;
}): readonly Product[] {
  // The spec: product type defaults to gpu when empty. Tiers are minimums: 0 means any.
  const type = q.productType ?? 'gpu';
  const regions = commaSet(q.regionIds);
  return PRODUCTS.filter(
    (p) =>
      p.type === type &&
      (!q.category || p.category === q.category) &&
      p.resource_spec.cpu >= (q.cpuCores ?? 0) &&
      p.resource_spec.memory_gb >= (q.memoryGb ?? 0) &&
      p.resource_spec.rootfs.max_gb >= (q.rootfsGb ?? 0) &&
      (!q.billingMethod || p.billing_methods.includes(q.billingMethod)) &&
      (!regions || p.region_ids.some((r) => regions.has(r))),
  );
}
