// OpenTelemetry tracing, off unless the OTEL_* variables ask for it (docs/observability.md). Off, nothing is
// registered or bundled, so the OpenTelemetry API the platform client calls is its no-op.
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

/** Which exporter the environment asks for, if any: unlike the SDK's default (otlp), none unless asked. */
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

/** A global tracer provider when the environment asks for one; the OTLP exporter reads OTEL_EXPORTER_OTLP_* itself. */
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

/** Traced workflows and activities (with trace ids in their log lines), and the sink for the sandbox's spans. */
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
 * A span for each start, signal, query and update, its context sent in the workflow's headers. For a backend's own
 * Client: `new Client({ connection, interceptors: tracingClientInterceptors() })`, its OpenTelemetry SDK registered.
 */
export function tracingClientInterceptors(): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}
