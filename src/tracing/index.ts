// OpenTelemetry tracing, off unless the standard OTEL_* variables ask for it (docs/observability.md):
// a backend's start, the workflow, its activities and each platform HTTP call in one trace. Off, no
// provider is registered, no interceptor is installed and the workflow bundle has no tracing module,
// so the OpenTelemetry API the platform client calls is its no-op.
import { propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResourcesSync, envDetectorSync, Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { ClientInterceptors } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';

/** The exporters OTEL_TRACES_EXPORTER may name (OTLP is http/json; gRPC and protobuf are not shipped). */
const EXPORTERS = ['otlp', 'console'] as const;

export type Tracing = NonNullable<ReturnType<typeof startTracing>>;

/**
 * Which exporter the environment asks for, or undefined for none. Unlike the SDK's own default
 * (otlp), nothing is exported unless OTEL_TRACES_EXPORTER names an exporter or an OTLP endpoint is
 * set; OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none switch it off whatever else is set.
 */
export function tracesExporterName(env: NodeJS.ProcessEnv): (typeof EXPORTERS)[number] | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const named = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (named === 'none') return undefined;
  if (named) {
    // Only the first of a list: one exporter per process is all this service sets up.
    const first = named.split(',')[0].trim();
    if (!(EXPORTERS as readonly string[]).includes(first)) {
      throw new Error(`OTEL_TRACES_EXPORTER=${first} is not supported here: use one of ${EXPORTERS.join(', ')}, none`);
    }
    return first as (typeof EXPORTERS)[number];
  }
  return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : undefined;
}

/**
 * Registers a global tracer provider when the environment asks for tracing, and returns it; otherwise
 * undefined and nothing is registered. The OTLP exporter reads its endpoint, headers and timeout from
 * the process environment itself (OTEL_EXPORTER_OTLP_*), as the SDK documents.
 */
export function startTracing(env: NodeJS.ProcessEnv, defaultServiceName: string) {
  const name = tracesExporterName(env);
  if (!name) return undefined;
  const exporter: SpanExporter = name === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the process's own name.
  const resource = new Resource({ 'service.name': defaultServiceName }).merge(
    detectResourcesSync({ detectors: [envDetectorSync] }),
  );
  const spanProcessor = new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // The AsyncLocalStorage context (an activity's span is the parent of its HTTP calls) and the W3C
  // propagator (OTEL_PROPAGATORS may choose others).
  provider.register();
  return {
    resource,
    spanProcessor,
    /** Flushes the spans not yet exported and stops the provider. */
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
    },
  };
}

/**
 * The worker options that trace workflows and activities: the workflow interceptor module (bundled
 * only when tracing is on), the activity interceptors (which also put trace_id and span_id in the
 * activities' log lines), and the sink that exports the spans made inside the workflow sandbox.
 */
export function tracingWorkerOptions(tracing: Tracing): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  return {
    interceptors: {
      workflowModules: [TRACING_WORKFLOW_INTERCEPTORS],
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}

/** The SDK's workflow interceptor module: spans for the run, its activities and children, with trace ids in its logs. */
export const TRACING_WORKFLOW_INTERCEPTORS =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/**
 * The client interceptor that starts a span for each start, signal, query and update and sends its
 * context in the workflow's headers. For a backend's own Client:
 * `new Client({ connection, interceptors: tracingClientInterceptors() })`, with the backend's
 * OpenTelemetry SDK registered (its spans go wherever that SDK sends them).
 */
export function tracingClientInterceptors(): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}
