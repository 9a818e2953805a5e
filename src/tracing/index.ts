// OpenTelemetry tracing, off unless OTEL_* asks (docs/observability.md); off, the API the client calls is a no-op.
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

// OTLP is http/json; gRPC and protobuf are not shipped.
const EXPORTERS = ['otlp', 'console'] as const;

export type Tracing = NonNullable<ReturnType<typeof startTracing>>;

/** Unlike the SDK's default (otlp), none unless asked. */
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

/** The OTLP exporter reads OTEL_EXPORTER_OTLP_* itself. */
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
  // The AsyncLocalStorage context (an activity's span is the parent of its HTTP calls) and the W3C propagator.
  provider.register();
  return {
    resource,
    spanProcessor,
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
    },
  };
}

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

const TRACING_WORKFLOW_INTERCEPTORS =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/** For a backend's own Client too: `new Client({ connection, interceptors: tracingClientInterceptors() })`. */
export function tracingClientInterceptors(): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}
