// Account services: the member budget check, the API key bill list, the quota list, the balance, and
// the model list (the spec's "first call", which the worker makes at start to check its key).
import type { FastifyInstance } from 'fastify';
import {
  BillListRequest,
  CheckMemberBudgetRequest,
  DECISION_MODEL,
  MODEL_REGISTRY,
  type PlatformPaths,
  QuotaListRequest,
} from '@platform-ops/client';
import { parseOr400, sendPlatformError } from './http';
import type { Accounts } from './accounts';
import type { RateLimiter } from './rate-limit';

interface AccountDeps {
  accounts: Accounts;
  limiter: RateLimiter;
  paths: PlatformPaths;
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/** A member without a limit shows this much (1,000,000 USD): the balance has no "unlimited". */
const UNLIMITED_BALANCE = 10_000_000_000;

export function registerAccountRoutes(app: FastifyInstance, deps: AccountDeps): void {
  const { accounts, limiter, paths } = deps;

  app.post(paths.checkMemberBudget, (request, reply) => {
    const body = parseOr400(reply, CheckMemberBudgetRequest, request.body);
    if (!body) return reply;
    const member = accounts.member(body.member_id);
    // 404 like the task API's unknown id (the spec shows no answer for it); the reason says what is missing.
    if (!member) return sendPlatformError(reply, 404, 'MEMBER_NOT_FOUND', `member ${body.member_id} not found`);
    return reply.send({ enough: accounts.canAfford(member.id, body.cost) });
  });

  app.get(paths.billList, (request, reply) => {
    const raw = request.query as Record<string, unknown>;
    // Query strings to numbers first, so the shared schema (range rules, verbatim message) judges them.
    const query: Record<string, unknown> = { ...raw };
    for (const key of ['startTime', 'endTime']) {
      const v = raw[key];
      // A fraction becomes a number too, so the schema answers "must be an integer" rather than "a number".
      if (typeof v === 'string' && NUMBER.test(v)) query[key] = Number(v);
    }
    const q = parseOr400(reply, BillListRequest, query);
    if (!q) return reply;
    return reply.send({ bills: accounts.bills(request.caller.userId, q) });
  });

  app.get(paths.listModels, (_request, reply) =>
    reply.send({
      object: 'list',
      data: [...new Set([...MODEL_REGISTRY.list().map((m) => m.path), DECISION_MODEL])].map((id) => ({
        id,
        object: 'model',
        owned_by: 'platform-emulator',
      })),
    }),
  );

  // The caller's member's remaining budget, as the live platform's strings.
  app.get(paths.balanceDetail, (request, reply) => {
    const member = accounts.member(request.caller.memberId);
    const available = String(member?.remaining ?? UNLIMITED_BALANCE);
    return reply.send({ availableBalance: available, cashBalance: available, creditLimit: '0' });
  });

  app.get(paths.quotaList, (request, reply) => {
    const q = parseOr400(reply, QuotaListRequest, request.query);
    if (!q) return reply;
    const object = q.quotaObject?.toLowerCase();
    const eq = (a: string, b: string | undefined) => b === undefined || a.toLowerCase() === b.toLowerCase();
    const data = limiter
      .list()
      .filter(
        (quota) =>
          eq(quota.modal, q.modal) &&
          eq(quota.quotaType, q.quotaType) &&
          eq(quota.productType, q.productType) &&
          (object === undefined || quota.quotaObject.toLowerCase().includes(object)),
      );
    return reply.send({ data, total: data.length });
  });
}
