import { defineStarter, num, type FlagsOf } from '../../cli/flags';

const flags = {
  '--instance-id <id>': 'GPU instance id',
  '--months <n>': 'months to renew',
  '--timeout-seconds <n>': 'how long to wait for the instance to run again',
  '--name <name>': 'createInstance: the instance name (no live instance may have it)',
  '--product-id <id>': 'createInstance: the GPU product',
  '--gpus <n>': 'createInstance: GPUs (1)',
  '--billing-mode <mode>': 'createInstance: subscription (with --months) or payAsYouGo',
  '--image-url <url>': 'createInstance: the container image',
  '--template-id <id>': 'createInstance: a template to take the image from',
  '--region-id <id>': 'createInstance: the region',
} as const;

const action = {
  usage: '--instance-id ID [--timeout-seconds N]',
  input: (f: FlagsOf<typeof flags>) => ({
    instanceId: f.instanceId,
    timeoutSeconds: num(f.timeoutSeconds, '--timeout-seconds'),
  }),
};

export const starter = defineStarter({
  flags,
  inputs: {
    renewInstance: {
      usage: '--instance-id ID --months N',
      input: (f) => ({ instanceId: f.instanceId, months: num(f.months, '--months') }),
    },
    restartInstance: action,
    createInstance: {
      usage:
        '--name NAME --product-id ID [--gpus N] [--months N (a subscription) | --billing-mode payAsYouGo] ' +
        '[--image-url URL] [--template-id ID] [--region-id ID] [--timeout-seconds N]',
      input: (f) => ({
        request: {
          name: f.name,
          productId: f.productId,
          gpuNum: num(f.gpus ?? '1', '--gpus', 'request.gpuNum'),
          billingMode: f.billingMode ?? (f.months === undefined ? 'payAsYouGo' : 'subscription'),
          months: num(f.months, '--months', 'request.months'),
          imageUrl: f.imageUrl,
          templateId: f.templateId,
          regionId: f.regionId,
        },
        timeoutSeconds: num(f.timeoutSeconds, '--timeout-seconds'),
      }),
    },
    startInstance: action,
    stopInstance: action,
    deleteInstance: action,
  },
  examples: [
    'start renewInstance --instance-id inst-demo-1 --months 1 --wait',
    'start restartInstance --instance-id inst-demo-2 --wait',
  ],
});
