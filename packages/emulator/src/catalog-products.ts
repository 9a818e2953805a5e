// The product list's fixtures: a handful of GPU and CPU products with every spec field (GPU, pricing,
// billing methods, inventory). Data only; catalog.ts filters and pages them.

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

export interface Product {
  id: string;
  type: string;
  category: string;
  region_ids: string[];
  resource_spec: { cpu: number; memory_gb: number; rootfs: { max_gb: number } };
  billing_methods: string[];
  [field: string]: unknown;
}

export const PRODUCTS: readonly Product[] = PRODUCT_SEEDS.map((p) => ({
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
