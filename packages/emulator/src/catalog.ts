// Templates and products: their list routes with filters and cursor pagination, over the fixed
// fixtures of catalog-templates.ts and catalog-products.ts.
import type { FastifyInstance } from 'fastify';
import {
  describeZodIssues,
  ListProductsRequest,
  ListTemplatesRequest,
  type PlatformPaths,
  PRODUCT_FILTER_PARAMS,
  type ValidationIssue,
} from '@platform-ops/client';
import { sendInvalid } from './http';
import type { Caller } from './types';
import { PRODUCTS, type Product } from './catalog-products';
import { TEMPLATES } from './catalog-templates';

const DEFAULT_TEMPLATE_PAGE = 20;

// ── Query handling ─────────────────────────────────────────────────────────
const NUMBER = /^-?\d+(\.\d+)?$/;

/** Query strings to the schema's types: numbers for numeric fields, booleans for flags; the rest stays. */
function convertQuery(
  query: Record<string, unknown>,
  numeric: ReadonlySet<string>,
  flags: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) {
    if (typeof v !== 'string') out[k] = v;
    else if (numeric.has(k)) {
      if (v === '') continue; // An empty number means "not given", as HTML forms send it.
      out[k] = NUMBER.test(v) ? Number(v) : v;
    } else if (flags.has(k)) out[k] = v === 'true' ? true : v === 'false' ? false : v;
    else out[k] = v;
  }
  return out;
}

const commaSet = (list: string | undefined): Set<string> | undefined =>
  list === undefined || list === ''
    ? undefined
    : new Set(
        list
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      );

/** Cursors are opaque to callers: an offset in a list, tagged so one list's cursor fails on another. */
const encodeCursor = (list: string, offset: number) => Buffer.from(`${list}:${offset}`).toString('base64url');

function decodeCursor(list: string, cursor: string | undefined, size: number): number | 'bad' {
  if (cursor === undefined || cursor === '') return 0;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^([a-z]+):(\d+)$/.exec(text);
  if (!m || m[1] !== list) return 'bad';
  const offset = Number(m[2]);
  return offset <= size ? offset : 'bad';
}

const BAD_CURSOR: ValidationIssue = {
  field: 'cursor',
  rule: 'is not a cursor this list handed out (use the next_cursor of the previous page)',
};

function page<T>(list: string, items: readonly T[], offset: number, limit: number) {
  const data = items.slice(offset, offset + limit);
  const has_more = offset + limit < items.length;
  return { data, next_cursor: has_more ? encodeCursor(list, offset + limit) : '', has_more };
}

const PRODUCT_QUERY_NAMES = Object.fromEntries(Object.entries(PRODUCT_FILTER_PARAMS).map(([key, name]) => [name, key]));

export function registerCatalogRoutes(app: FastifyInstance, deps: { paths: PlatformPaths }): void {
  const { paths } = deps;

  app.get(paths.listTemplates, (request, reply) => {
    const query = convertQuery(
      request.query as Record<string, unknown>,
      new Set(['limit']),
      new Set(['is_my_community']),
    );
    const parsed = ListTemplatesRequest.safeParse(query);
    if (!parsed.success) return sendInvalid(reply, describeZodIssues(parsed.error.issues));
    const q = parsed.data;
    const items = filterTemplates(q, request.caller);
    const offset = decodeCursor('tpl', q.cursor, items.length);
    if (offset === 'bad') return sendInvalid(reply, [BAD_CURSOR]);
    return reply.send(page('tpl', items, offset, q.limit || DEFAULT_TEMPLATE_PAGE));
  });

  app.get(paths.listProducts, (request, reply) => {
    const raw = request.query as Record<string, unknown>;
    // The wire names (PRODUCT_FILTER_PARAMS) map to the schema's keys; unknown names pass through so
    // the strict schema names them.
    const named: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(raw)) named[PRODUCT_QUERY_NAMES[name] ?? name] = value;
    const query = convertQuery(named, new Set(['cpuCores', 'memoryGb', 'rootfsGb', 'limit']), new Set());
    const parsed = ListProductsRequest.safeParse(query);
    if (!parsed.success) {
      return sendInvalid(
        reply,
        describeZodIssues(parsed.error.issues).map((i) => ({ ...i, field: wireName(i.field) })),
      );
    }
    const q = parsed.data;
    const items = filterProducts(q);
    const offset = decodeCursor('prd', q.cursor, items.length);
    if (offset === 'bad') return sendInvalid(reply, [BAD_CURSOR]);
    if (q.limit === undefined) return reply.send({ data: items.slice(offset) });
    return reply.send(page('prd', items, offset, q.limit === 0 ? items.length : q.limit));
  });
}

function wireName(field: string): string {
  return (PRODUCT_FILTER_PARAMS as Record<string, string>)[field] ?? field;
}

function filterTemplates(
  q: { name?: string; type?: string; visibilities?: string; member_ids?: string; is_my_community?: boolean },
  caller: Caller,
): readonly Record<string, unknown>[] {
  const name = q.name?.toLowerCase();
  const visibilities = commaSet(q.visibilities);
  const members = commaSet(q.member_ids);
  return TEMPLATES.filter(
    (t) =>
      (!name || String(t.name).toLowerCase().includes(name)) &&
      (!q.type || t.type === q.type) &&
      (!visibilities || visibilities.has(String(t.visibility))) &&
      (!members || members.has(String(t.member_id))) &&
      (!q.is_my_community || (t.visibility === 'community' && t.owner_id === caller.userId)),
  );
}

function filterProducts(q: {
  productType?: string;
  category?: string;
  cpuCores?: number;
  memoryGb?: number;
  rootfsGb?: number;
  billingMethod?: string;
  regionIds?: string;
}): readonly Product[] {
  // The spec: product type defaults to gpu when empty. Tiers are minimums: 0 means any.
  const type = q.productType ?? 'gpu';
  const regions = commaSet(q.regionIds);
  return PRODUCTS.filter(
    (p) =>
      p.type === type &&
      (!q.category || p.category === q.category) &&
      p.resource_spec.cpu >= (q.cpuCores ?? 0) &&
      p.resource_spec.memory_gb >= (q.memoryGb ?? 0) &&
      p.resource_spec.rootfs.max_gb >= (q.rootfsGb ?? 0) &&
      (!q.billingMethod || p.billing_methods.includes(q.billingMethod)) &&
      (!regions || p.region_ids.some((r) => regions.has(r))),
  );
}
