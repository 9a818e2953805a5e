// What mediaGeneration submits, and what it expects back, for each form of its input: the two
// detailed operations by their own names, the "async" form through the model registry (resolved from
// the bundled registry: the input was checked against it, so the model is known).
import type { MediaGenerationResult, ParsedMediaGenerationRequestInput, TaskOutputRef } from './contract';
import type { SubmitMediaTaskInput } from '../../activities/media/activities';
import { MODEL_REGISTRY, type ResolvedModel } from '../../platform/models';

type SubmitTarget = Pick<SubmitMediaTaskInput, 'operation' | 'request'> & { model?: string; path?: string };

function resolved(input: ParsedMediaGenerationRequestInput & { operation: 'async' }): ResolvedModel {
  const model = MODEL_REGISTRY.resolve(input.model);
  // Unreachable: the input schema refuses a model the registry does not resolve.
  if (!model) throw new Error(`model ${input.model} is not in the registry`);
  return model;
}

export function submitTarget(input: ParsedMediaGenerationRequestInput): SubmitTarget {
  if (input.operation !== 'async') return { operation: input.operation, request: input.request };
  return { operation: 'async', model: input.model, path: resolved(input).path, request: input.request };
}

/** The result's `model` facts: the path submitted to and the output kinds expected but not produced. */
export function modelFacts(
  input: ParsedMediaGenerationRequestInput,
  outputs: readonly Pick<TaskOutputRef, 'kind'>[],
): MediaGenerationResult['model'] {
  if (input.operation !== 'async') return undefined;
  const m = resolved(input);
  const produced = new Set(outputs.map((o) => o.kind));
  // Pass-through models may produce any kind: only a registered model's list is an expectation.
  const expected = m.passThrough ? [] : m.outputs;
  return {
    name: m.model,
    path: m.path,
    passThrough: m.passThrough,
    expectedOutputs: expected,
    missingOutputs: expected.filter((k) => !produced.has(k)),
  };
}
