// The published JSON Schemas are current, and usable by a plain JSON Schema validator (what a
// backend in another language would use before starting a workflow).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { workflowJsonSchemas } from '../../src/api/json-schemas';
import { WORKFLOW_TYPES } from '@platform-ops/client';

const dir = path.join(__dirname, '..', '..', 'schemas');
const files = workflowJsonSchemas();

describe('workflow JSON Schemas', () => {
  it.each(Object.keys(files))('schemas/%s is up to date (run `npm run schemas`)', (name) => {
    expect(JSON.parse(readFileSync(path.join(dir, name), 'utf8'))).toEqual(files[name]);
  });

  it('covers every workflow type', () => {
    for (const type of WORKFLOW_TYPES) {
      expect(files[`${type}.input.json`]).toBeDefined();
      expect(files[`${type}.result.json`]).toBeDefined();
    }
  });

  const ajv = new Ajv2020({ strict: false, allErrors: true });
  it.each([
    ['renewInstance', { instanceId: 'inst-1', months: 3 }, true],
    ['renewInstance', { instanceId: 'inst-1', months: 0 }, false],
    ['renewInstance', { instanceId: 'inst-1' }, false],
    ['restartInstance', { instanceId: 'inst-1', timeoutSeconds: 600 }, true],
    ['restartInstance', { instanceId: 'inst-1', timeoutSecs: 600 }, false],
    [
      'evaluateDecision',
      { state: ['text', { image: 'https://a.example.com/x.png' }], questions: [{ kind: 'yes_no', question: 'ok?' }] },
      true,
    ],
    ['evaluateDecision', { state: 'text', questions: [] }, false],
    // The async form: the published schema checks the model segment's shape; the registry is the workflow's.
    ['mediaGeneration', { operation: 'async', model: 'qwen-image', request: { prompt: 'a fox' } }, true],
    ['mediaGeneration', { operation: 'async', model: '../task-result', request: {} }, false],
  ])('%s input %j valid: %s', (type, input, valid) => {
    const validate = ajv.compile(files[`${type}.input.json`] as object);
    expect(validate(input)).toBe(valid);
  });
});
