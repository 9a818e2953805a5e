// The worker's check of its namespace at start: every workflow that sets a missing search attribute fails its
// workflow task over and over, so the worker registers what is missing where it may, else refuses to start.
import { isGrpcServiceError, type Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Command } from 'commander';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '@platform-ops/client';
import { sleep } from '../devserver/processes';

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;
type IndexedValueType = temporal.api.enums.v1.IndexedValueType;
// gRPC codes of a server that will not let us look (Temporal Cloud).
const PERMISSION_DENIED = 7;
const UNIMPLEMENTED = 12;
type AttributeType = (typeof SEARCH_ATTRIBUTE_DEFINITIONS)[string];

/** The server's enum for a type as the CLI names it: KeywordList is INDEXED_VALUE_TYPE_KEYWORD_LIST. */
export function indexedValueType(type: string): IndexedValueType | undefined {
  const key = `INDEXED_VALUE_TYPE_${type.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toUpperCase()}`;
  return (IndexedValueType as unknown as Record<string, IndexedValueType | undefined>)[key];
}

const typeName = (type: number): string =>
  (IndexedValueType[type] ?? String(type))
    .replace('INDEXED_VALUE_TYPE_', '')
    .toLowerCase()
    .replace(/(^|_)(\w)/g, (_, _sep, c: string) => c.toUpperCase());

/** The namespace cache refreshes every 2 s: a workflow started sooner could still be refused a new attribute. */
const SEARCH_ATTRIBUTE_PROPAGATION_MS = 5_000;

export class SearchAttributeMismatchError extends Error {
  override readonly name = 'SearchAttributeMismatchError';
}

interface SearchAttributeCheck {
  connection: Pick<Connection, 'operatorService'>;
  namespace: string;
  address: string;
  register: boolean;
  log: (msg: string) => void;
  /** A test passes a no-op. */
  sleep?: (ms: number) => Promise<void>;
}

/** The Temporal CLI command that adds `missing` (name → type) to a namespace. */
export function addSearchAttributesCommand(
  address: string,
  namespace: string,
  missing: Record<string, string>,
): string {
  const pairs = Object.entries(missing).map(([name, type]) => `--name ${name} --type ${type}`);
  return `temporal operator search-attribute create --address ${address} --namespace ${namespace} ${pairs.join(' ')}`;
}

/** The attributes it added; `checked` false: the server did not let us look (a cloud namespace, say). */
export async function ensureSearchAttributes(check: SearchAttributeCheck) {
  const { operatorService } = check.connection;
  let existing: Record<string, IndexedValueType>;
  try {
    existing = (await operatorService.listSearchAttributes({ namespace: check.namespace })).customAttributes ?? {};
  } catch (err) {
    const code = isGrpcServiceError(err) ? (err.code as number) : undefined;
    if (code === PERMISSION_DENIED || code === UNIMPLEMENTED) {
      check.log(
        `Cannot list the search attributes of namespace ${check.namespace} (${(err as Error).message}); ` +
          `make sure it has ${Object.keys(SEARCH_ATTRIBUTE_DEFINITIONS).join(', ')}.`,
      );
      return { registered: [], checked: false };
    }
    throw err;
  }
  const missing: Record<string, AttributeType> = {};
  const wrongType: string[] = [];
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTE_DEFINITIONS)) {
    const found = existing[name];
    if (found === undefined) missing[name] = type;
    else if (found !== indexedValueType(type)) wrongType.push(`${name} (${typeName(found)}, want ${type})`);
  }
  if (wrongType.length > 0) {
    throw new SearchAttributeMismatchError(
      `Namespace ${check.namespace} at ${check.address} has search attributes of another type than this service's: ` +
        `${wrongType.join(', ')}. Workflows would fail to set them; use a namespace where they have the service's types.`,
    );
  }
  const names = Object.keys(missing);
  if (names.length === 0) return { registered: [], checked: true };
  const described = names.map((n) => `${n} (${missing[n]})`).join(', ');
  if (!check.register) {
    throw new SearchAttributeMismatchError(
      `Namespace ${check.namespace} at ${check.address} lacks the search attributes ${described}: ` +
        `workflows that set them would fail their workflow tasks over and over. Add them with\n` +
        `  ${addSearchAttributesCommand(check.address, check.namespace, missing)}\n` +
        `or start the worker with --register-search-attributes.`,
    );
  }
  check.log(`Registering the search attributes ${described} in namespace ${check.namespace}…`);
  await operatorService.addSearchAttributes({
    namespace: check.namespace,
    searchAttributes: Object.fromEntries(names.map((n) => [n, indexedValueType(missing[n])!])),
  });
  await (check.sleep ?? sleep)(SEARCH_ATTRIBUTE_PROPAGATION_MS);
  return { registered: names, checked: true };
}

/** A server on this machine may be changed by the worker; anything else only by a person. */
export function isLocalAddress(address: string): boolean {
  const host = address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** `--[no-]register-search-attributes`: `action` gets it as WORKER_REGISTER_SEARCH_ATTRIBUTES, if given. */
export function addRegisterSearchAttributesOption(
  command: Command,
  action: (env: NodeJS.ProcessEnv) => void | Promise<void>,
): Command {
  // With both forms defined, commander leaves the value undefined unless one is given.
  return command
    .option('--register-search-attributes', 'add search attributes the namespace lacks (default: on a local server)')
    .option('--no-register-search-attributes', 'refuse to start when the namespace lacks one')
    .action(({ registerSearchAttributes: register }: { registerSearchAttributes?: boolean }) =>
      action(register === undefined ? {} : { WORKER_REGISTER_SEARCH_ATTRIBUTES: String(register) }),
    );
}
