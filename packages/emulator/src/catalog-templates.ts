// The template list's fixtures: 25 templates (more than a default page of 20, so pagination is
// exercised), public, community and private ones. Data only; catalog.ts filters and pages them.

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

export const TEMPLATES: readonly Record<string, unknown>[] = TEMPLATE_SEEDS.map((seed, i) => {
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
