// Decision evaluation (this project's design: the spec shows no path, kinds or response shape).
// Probabilities are fixed by a hash of (kind, state, question, options), so a repeated call agrees with
// the first. Errors of the "upstream" (bad kind, options, thinking) come back in the platform's error
// structure. Only prompt tokens are billed, and a failed call is not billed (spec).
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  DECISION_MAX_BODY_BYTES,
  DECISION_MODEL,
  DecisionEvaluationRequest,
  KNOWN_DECISION_KINDS,
  type PlatformPaths,
  type ValidationIssue,
} from '@platform-ops/client';
import type { EmulatorClock } from './clock';
import type { DecisionSettings } from './fixtures';
import { draw, hash32 } from './hash';
import { parseOr400, sendInvalid, sendPlatformError } from './http';
import type { Accounts } from './accounts';
import { LLM_CATEGORY, decisionAmount } from './pricing';
import type { RateLimiter } from './rate-limit';

/** Tokens per image in the prompt (a fixed-size vision encoding). */
const IMAGE_TOKENS = 258;
/** Tokens of the fixed prompt template around the content and the question. */
const TEMPLATE_TOKENS = 24;
const DEFAULT_THINK_BUDGET = 512;
/** Weight of the thinking round's distribution when the two are fused (spec: fixed weights). */
const THINKING_WEIGHT = 0.6;
const YES_NO = ['yes', 'no'];

type Request = ReturnType<typeof DecisionEvaluationRequest.parse>;

interface DecisionMarkers {
  /** Forced final probability of the first option. */
  p?: number;
  /** Answer as a failing upstream would. */
  fail?: boolean;
}

const MARKER = /\[emulator:([a-z]+)(?:=([^\]]*))?\]/g;

function parseDecisionMarkers(question: string): { markers: DecisionMarkers; issues: ValidationIssue[] } {
  const markers: DecisionMarkers = {};
  const issues: ValidationIssue[] = [];
  if (!question.includes('[emulator:')) return { markers, issues };
  for (const [whole, name, value] of question.matchAll(MARKER)) {
    if (name === 'p') {
      const p = Number(value);
      if (value === undefined || value.trim() === '' || !(p >= 0 && p <= 1)) {
        issues.push({ field: 'question', rule: `marker ${whole} needs a probability from 0 to 1` });
      } else markers.p = p;
    } else if (name === 'fail' && value === undefined) markers.fail = true;
    else issues.push({ field: 'question', rule: `has an unknown emulator marker ${whole} (known: p=<0..1>, fail)` });
  }
  return { markers, issues };
}

/** What the upstream refuses (spec: kind, options and thinking are validated upstream). */
function upstreamError(req: Request): { reason: string; message: string; param: string } | undefined {
  if (!(KNOWN_DECISION_KINDS as readonly string[]).includes(req.kind)) {
    return {
      reason: 'INVALID_DECISION_KIND',
      param: 'kind',
      message: `upstream: kind "${req.kind}" is not supported; use one of ${KNOWN_DECISION_KINDS.map((k) => `"${k}"`).join(', ')}`,
    };
  }
  if (req.kind === 'yes_no' && req.options !== undefined && req.options.length !== 2) {
    return {
      reason: 'INVALID_DECISION_OPTIONS',
      param: 'options',
      message: `upstream: kind "yes_no" takes exactly 2 options (got ${req.options.length}); omit options for ["yes", "no"]`,
    };
  }
  if (req.think_budget !== undefined && !req.thinking) {
    return {
      reason: 'INVALID_DECISION_THINKING',
      param: 'think_budget',
      message: 'upstream: think_budget needs thinking: true',
    };
  }
  return undefined;
}

/** A distribution over `n` options fixed by `seed` (normalised exponential draws: a flat Dirichlet). */
function distribution(seed: string, n: number): number[] {
  const w = Array.from({ length: n }, (_, i) => -Math.log(1 - draw(`${seed}#${i}`) * 0.999_999));
  const sum = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / sum);
}

/** Rounds to 4 decimals and puts the rounding error on the largest value, so the sum stays 1. */
function tidy(p: number[]): number[] {
  const r = p.map((x) => Math.round(x * 10_000) / 10_000);
  const max = r.indexOf(Math.max(...r));
  r[max] = Math.round((r[max] + 1 - r.reduce((a, b) => a + b, 0)) * 10_000) / 10_000;
  return r;
}

function promptTokens(req: Request, options: readonly string[]): number {
  const parts = typeof req.state === 'string' ? [req.state] : req.state;
  let chars = req.question.length + options.join(' ').length;
  let images = 0;
  for (const part of parts) {
    if (typeof part === 'string') chars += part.length;
    else images++;
  }
  return TEMPLATE_TOKENS + Math.ceil(chars / 4) + images * IMAGE_TOKENS;
}

interface DecisionDeps {
  accounts: Accounts;
  limiter: RateLimiter;
  clock: EmulatorClock;
  settings: () => DecisionSettings;
  paths: PlatformPaths;
}

export function registerDecisionRoute(app: FastifyInstance, deps: DecisionDeps): void {
  const { accounts, limiter, clock, paths } = deps;

  app.post(
    paths.decisionEvaluation,
    // Headroom over the spec's 64 MB, so a body just over it gets the precise size rule, not a bare 413.
    { bodyLimit: DECISION_MAX_BODY_BYTES + 1024 * 1024 },
    async (request, reply): Promise<FastifyReply> => {
      const req = parseOr400(reply, DecisionEvaluationRequest, request.body);
      if (!req) return reply;
      const { markers, issues } = parseDecisionMarkers(req.question);
      if (issues.length > 0) return sendInvalid(reply, issues);
      const upstream = upstreamError(req);
      if (upstream) {
        return sendPlatformError(reply, 400, upstream.reason, upstream.message, {
          upstream_error: { status: 422, param: upstream.param, message: upstream.message },
        });
      }
      if (!limiter.take(reply, 'decisionEvaluation', request.caller.userId)) return reply;
      if (markers.fail) {
        return sendPlatformError(
          reply,
          502,
          'UPSTREAM_ERROR',
          'upstream: the decision model failed to answer (forced by [emulator:fail])',
          {
            upstream_error: { status: 500, message: 'model worker crashed' },
          },
        );
      }

      const options = req.options ?? YES_NO;
      const tokens = promptTokens(req, options);
      const amount = decisionAmount(tokens);
      if (!accounts.canAfford(request.caller.memberId, amount)) {
        return sendPlatformError(
          reply,
          400,
          'BILLING_BALANCE_NOT_ENOUGH',
          `the budget of member ${request.caller.memberId} does not cover this request (${amount} in 1/10000 USD)`,
        );
      }

      const seed = JSON.stringify([req.kind, req.state, req.question, options]);
      let probs = distribution(seed, options.length);
      const settings = deps.settings();
      const budget = req.think_budget ?? DEFAULT_THINK_BUDGET;
      const thinkTokens = req.thinking ? Math.min(budget, 64 + (hash32(`${seed}#think`) % 448)) : 0;
      if (req.thinking) {
        const second = distribution(`${seed}#thinking`, options.length);
        probs = probs.map((p, i) => (1 - THINKING_WEIGHT) * p + THINKING_WEIGHT * second[i]);
      }
      if (markers.p !== undefined) {
        const forced = markers.p;
        // The rest share what is left in proportion to their hashed weights.
        const rest = probs.slice(1).reduce((a, b) => a + b, 0) || 1;
        probs = probs.map((p, i) => (i === 0 ? forced : ((1 - forced) * p) / rest));
      }
      probs = tidy(probs);
      let best = 0;
      probs.forEach((p, i) => {
        if (p > probs[best]) best = i;
      });
      const probabilities = Object.fromEntries(options.map((o, i) => [o, probs[i]]));

      const thinkMs = thinkTokens * settings.msPerThinkToken;
      await delay(clock.realDelay(settings.baseLatencyMs + thinkMs));

      accounts.charge({
        caller: request.caller,
        productId: DECISION_MODEL,
        productName: DECISION_MODEL,
        category: LLM_CATEGORY,
        amount,
        usage: { billNum0: String(tokens), billNum1: '0', billNum4: String(thinkTokens) },
      });
      return reply.send({
        // The spec: the model is echoed in a different letter case than requested.
        model: DECISION_MODEL.toUpperCase(),
        kind: req.kind,
        probabilities,
        choice: options[best],
        usage: { prompt_tokens: tokens, completion_tokens: req.thinking ? thinkTokens + 1 : 1 },
        num_model_requests: req.thinking ? 2 : 1,
        ...(req.thinking
          ? {
              thinking: {
                mode: 'fused',
                threshold: THINKING_WEIGHT,
                budget,
                used: thinkTokens,
                think_tokens: thinkTokens,
                think_seconds: Math.round(thinkMs) / 1000,
                finished_within_budget: thinkTokens < budget,
                ...(req.return_reasoning
                  ? {
                      reasoning: `The question "${req.question}" was weighed against the content; "${options[best]}" fits best (p=${probs[best]}).`,
                    }
                  : {}),
              },
            }
          : {}),
      });
    },
  );
}
