// The model registry (pure): the shipped file parses and its JSON Schemas compile, models resolve by
// name or by the pass-through rule, segments are checked, bodies are bounded and checked.
import { ASYNC_BODY_BOUNDS, jsonBoundsProblem, MODEL_REGISTRY, ModelName, ModelRegistry } from '@platform-ops/client';

describe('the model registry', () => {
  it('ships the two detailed models and the three marked examples', () => {
    const models = MODEL_REGISTRY.list();
    expect(models.filter((m) => m.builtIn).map((m) => m.path)).toEqual(['vendor-v3.0-std-i2v', 'vendor-v3.0-pro-t2v']);
    expect(models.filter((m) => m.example).map((m) => [m.model, m.outputs])).toEqual([
      ['qwen-image', ['image']],
      ['wan-t2v-preview', ['video']],
      ['speech-hd', ['audio']],
    ]);
    for (const m of models.filter((e) => e.example)) expect(m).toMatchObject({ hasSchema: true, quota: m.path });
  });

  it('resolves registered models by name, unlisted ones only by a pass-through prefix', () => {
    expect(MODEL_REGISTRY.resolve('qwen-image')).toMatchObject({ path: 'qwen-image-txt2img', passThrough: false });
    expect(MODEL_REGISTRY.resolve('custom-x')).toMatchObject({ path: 'custom-x', passThrough: true, hasSchema: false });
    expect(MODEL_REGISTRY.resolve('unknown-x')).toBeUndefined();
    // Object keys that are not models.
    expect(MODEL_REGISTRY.resolve('constructor')).toBeUndefined();
    expect(MODEL_REGISTRY.forPath('qwen-image-txt2img')).toMatchObject({ model: 'qwen-image' });
    expect(MODEL_REGISTRY.forPath('../etc')).toBeUndefined();
  });

  it('without pass-through prefixes, refuses every unlisted model and says so', () => {
    const strict = new ModelRegistry({ passThrough: { prefixes: [] }, models: {} });
    expect(strict.resolve('custom-x')).toBeUndefined();
    expect(strict.unknownRule('custom-x')).toContain('the registry allows no pass-through');
  });

  it.each([
    ['a/b', 'one URL path segment'],
    ['..', 'one URL path segment'],
    ['-x', 'one URL path segment'],
    ['a b', 'one URL path segment'],
    ['x'.repeat(129), 'Too big'],
    ['task-result', 'task-result endpoint'],
  ])('refuses the model segment %j', (model, rule) => {
    const parsed = ModelName.safeParse(model);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0].message).toContain(rule);
  });

  it('checks a body with the model schema, with paths from the body', () => {
    const issues = MODEL_REGISTRY.bodyIssues('speech-hd', { text: 'hi', voice_setting: { speed: 9 } });
    expect(issues.map((i) => i.path)).toEqual([['voice_setting', 'speed']]);
    expect(MODEL_REGISTRY.bodyIssues('custom-x', { anything: true })).toEqual([]);
    expect(MODEL_REGISTRY.bodyIssues('vendor-v3.0-pro-t2v', { prompt: 'p', duration: 99 })).toHaveLength(1);
  });

  it('refuses a registry whose body schema zod cannot read, naming the model', () => {
    expect(
      () =>
        new ModelRegistry({ models: { m: { path: 'm', outputs: ['image'], body: { type: 'object', $ref: '#/x' } } } }),
    ).toThrow(/models\.m\.body/);
  });
});

describe('JSON bounds of a body without a schema', () => {
  it.each([
    [{ a: 'x'.repeat(ASYNC_BODY_BOUNDS.maxChars) }, 'characters as JSON'],
    [JSON.parse('{"a":'.repeat(20) + '1' + '}'.repeat(20)), 'nested at most 16'],
    [{ a: Array.from({ length: 6_000 }, () => 0) }, 'at most 5000 values'],
  ])('refuses a body past a bound (%#)', (body, rule) => {
    expect(jsonBoundsProblem(body, ASYNC_BODY_BOUNDS)).toContain(rule);
  });

  it('takes an ordinary body', () => {
    expect(jsonBoundsProblem({ prompt: 'p', n: [1, 2], o: { deep: true } }, ASYNC_BODY_BOUNDS)).toBeUndefined();
  });
});
