// Paid calls the emulator carried out, per route and per subject (the instance renewed, the prompt
// generated, the question asked, the batch's metadata): a client that sends one paid call twice after
// a timeout shows as a subject counted twice. Counted from the handler's own answer (a 2xx), before a
// fault may rewrite or cut it: a call the client never heard back from was still carried out.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Counters } from './counters';
import { PAID } from './routes';

/** Long prompts and states are cut: the subject only has to tell one call's intent from another's. */
const SUBJECT_MAX = 200;

type Body = Record<string, unknown> | undefined;

/** What a paid call is about, from its request: the same intent sent twice gives the same subject. */
function paidSubject(routeKey: string, request: FastifyRequest): string {
  const body = request.body as Body;
  const params = request.params as Record<string, string> | undefined;
  let subject: unknown;
  switch (routeKey) {
    case 'renewInstance':
      subject = params?.instance_id;
      break;
    case 'createInstance':
      subject = body?.name;
      break;
    case 'createEndpoint':
      subject = (body?.endpoint as Body)?.name;
      break;
    case 'submitImageToVideo':
    case 'submitTextToVideo':
      subject = body?.prompt ?? body?.multi_prompt;
      break;
    case 'decisionEvaluation':
      subject = [body?.state, body?.question];
      break;
    case 'createBatch':
      subject = body?.metadata ?? body?.input_file_id;
      break;
    default:
      subject = body;
  }
  const text = typeof subject === 'string' ? subject : JSON.stringify(subject ?? null);
  return text.slice(0, SUBJECT_MAX);
}

/** onSend hook (before the faults' own): counts a paid route's 2xx answer under its subject. */
export function countPaidCalls(counters: Counters) {
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, p: unknown) => void) => {
    const route = request.routeOptions.config.emulatorRoute;
    if (route?.aliases.includes(PAID) && reply.statusCode >= 200 && reply.statusCode < 300) {
      counters.paid(route.key, paidSubject(route.key, request));
    }
    done(null, payload);
  };
}
