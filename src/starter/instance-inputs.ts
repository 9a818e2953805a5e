// The flags of the instance lifecycle workflows and autoRenew, as their inputs (workflow-inputs.ts
// merges them with the others').
import type { WorkflowType } from '../workflows/operations';
import { parseDuration } from './durations';

export interface InstanceFlags {
  instanceId?: string;
  months?: string;
  timeoutSeconds?: string;
  /** autoRenew: the member (as the issue spells it); --member-id works too. */
  member?: string;
  memberId?: string;
  /** autoRenew: renew what expires within this (72h, 3d …). */
  before?: string;
  costPerMonth?: string;
  // createInstance
  name?: string;
  productId?: string;
  gpus?: string;
  billingMode?: string;
  imageUrl?: string;
  templateId?: string;
  regionId?: string;
}

type Num = (value: string | undefined, flag: string, field?: string) => number | undefined;
type InstanceWorkflow =
  | typeof WorkflowType.autoRenew
  | typeof WorkflowType.createInstance
  | typeof WorkflowType.startInstance
  | typeof WorkflowType.stopInstance
  | typeof WorkflowType.deleteInstance;

export function instanceFlagInputs(num: Num): Record<InstanceWorkflow, (f: InstanceFlags) => Record<string, unknown>> {
  const action = (f: InstanceFlags) => ({
    instanceId: f.instanceId,
    timeoutSeconds: num(f.timeoutSeconds, '--timeout-seconds'),
  });
  return {
    autoRenew: (f) => ({
      memberId: f.member ?? f.memberId,
      beforeSeconds: f.before === undefined ? undefined : parseDuration(f.before, '--before') / 1000,
      months: num(f.months, '--months'),
      costPerMonth: num(f.costPerMonth, '--cost-per-month'),
    }),
    createInstance: (f) => ({
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
    startInstance: action,
    stopInstance: action,
    deleteInstance: action,
  };
}

export const INSTANCE_FLAG_HELP: Record<InstanceWorkflow, string> = {
  autoRenew: '--member ID --before 72h [--months N] [--cost-per-month N]',
  createInstance:
    '--name NAME --product-id ID [--gpus N] [--months N (a subscription) | --billing-mode payAsYouGo] ' +
    '[--image-url URL] [--template-id ID] [--region-id ID] [--timeout-seconds N]',
  startInstance: '--instance-id ID [--timeout-seconds N]',
  stopInstance: '--instance-id ID [--timeout-seconds N]',
  deleteInstance: '--instance-id ID [--timeout-seconds N]',
};
