// Tracing for a Temporal client (the worker's and the starter's): kept apart from ./index.ts, which
// loads the OpenTelemetry SDK and its exporter.
import type { ClientInterceptors } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';

/**
 * The client interceptor that starts a span for each start, signal, query and update and sends its
 * context in the workflow's headers. For a backend's own Client:
 * `new Client({ connection, interceptors: tracingClientInterceptors() })`, with the backend's
 * OpenTelemetry SDK registered (its spans go wherever that SDK sends them).
 */
export function tracingClientInterceptors(): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}
