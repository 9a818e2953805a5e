// The one parse-or-throw: every caller's error names each field and rule, in the caller's own wording.
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { formatIssues, parseInput, parseOrThrow, tryParse } from '@platform-ops/client';
import { ConfigError, parseConfig } from '../../src/platform-client/config';

const Shape = z.strictObject({ name: z.string().min(1), count: z.number().int().max(3) });

describe('parseOrThrow', () => {
  it('returns the parsed value', () => {
    expect(parseOrThrow(Shape, { name: 'a', count: 1 }, () => new Error('never'))).toEqual({ name: 'a', count: 1 });
  });

  it("throws the caller's error, made from every broken rule", () => {
    expect(() =>
      parseOrThrow(Shape, { name: '', count: 9 }, (issues) => new RangeError(`bad: ${formatIssues(issues)}`)),
    ).toThrow(new RangeError('bad: name: must not be empty; count: must be at most 3'));
  });

  it('tryParse gives the issues without throwing', () => {
    expect(tryParse(Shape, { name: 'a', count: 1, extra: true })).toEqual({
      ok: false,
      issues: [{ field: 'extra', rule: 'is not a known field' }],
    });
  });

  it('keeps each caller’s error type and wording', () => {
    expect(() => parseConfig(Shape, { name: 'a' }, 'Test configuration')).toThrow(
      new ConfigError('Test configuration: count: is required'),
    );
    const refusal = (input: unknown): ApplicationFailure => {
      try {
        parseInput(Shape, input, 'test');
      } catch (err) {
        if (err instanceof ApplicationFailure) return err;
      }
      throw new Error('expected an ApplicationFailure');
    };
    expect(refusal({ name: 'a', count: 1.5 })).toMatchObject({
      type: 'InvalidInput',
      nonRetryable: true,
      message: 'Invalid test input: count: must be an integer',
    });
    // A reserved key is named whether or not the rest parses.
    expect(refusal(JSON.parse('{"name":"a","count":1,"__proto__":{}}')).message).toMatch(
      /^Invalid test input: .*__proto__/,
    );
  });
});
