import {
  Context,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  TextMapGetter,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
} from '@opentelemetry/semantic-conventions';
import type {
  ServedRequest,
  SpanAttributes,
  SpanKindName,
  SpanOptions,
  TraceSpan,
  Tracing,
  TracingSettings,
} from './tracing.types';

/*
 * The OpenTelemetry SDK behind Tracing: loaded only by startTracing, when an OTLP endpoint is set. The
 * exporters read the OTEL_EXPORTER_OTLP_* variables (endpoint, headers, timeout, compression), the batch
 * processor the OTEL_BSP_* ones, the provider OTEL_TRACES_SAMPLER*, the resource OTEL_RESOURCE_ATTRIBUTES.
 */

const KINDS: Record<SpanKindName, SpanKind> = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
};

/** Reads a stored trace context (`traceparent`, newline, `tracestate`) as a propagation carrier. */
const storedContext: TextMapGetter<string> = {
  keys: () => ['traceparent', 'tracestate'],
  get: (stored, key) => {
    const newline = stored.indexOf('\n');
    if (key === 'traceparent') return newline < 0 ? stored : stored.slice(0, newline);
    return key === 'tracestate' && newline >= 0 ? stored.slice(newline + 1) : undefined;
  },
};

class OtelSpan implements TraceSpan {
  private carrier?: { traceparent?: string; tracestate?: string };

  constructor(readonly span: Span) {}

  private injected() {
    if (!this.carrier) {
      this.carrier = {};
      propagation.inject(trace.setSpan(ROOT_CONTEXT, this.span), this.carrier);
    }
    return this.carrier;
  }

  get traceparent(): string {
    return this.injected().traceparent ?? '';
  }

  get context(): string {
    const { traceparent = '', tracestate } = this.injected();
    return tracestate ? `${traceparent}\n${tracestate}` : traceparent;
  }

  set(attributes: SpanAttributes): void {
    this.span.setAttributes(attributes);
  }

  failed(message: string): void {
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  end(): void {
    this.span.end();
  }
}

export class OtelTracing implements Tracing {
  private readonly provider: NodeTracerProvider;
  private readonly tracer;

  constructor(settings: TracingSettings) {
    const exporter = settings.protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter();
    this.provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }).merge(
        detectResources({ detectors: [envDetector] }),
      ),
      spanProcessors: [new BatchSpanProcessor(exporter)],
    });
    // The global provider, the AsyncLocalStorage context manager and the W3C trace-context propagator.
    this.provider.register();
    this.tracer = this.provider.getTracer('wharf');
  }

  serve(method: string, route: string | undefined, headers: Record<string, unknown>): ServedRequest {
    // The API's default getter reads the headers as Node gives them (lower-case names, repeats as arrays).
    const parent = propagation.extract(ROOT_CONTEXT, headers);
    const span = this.tracer.startSpan(
      route ? `${method} ${route}` : method,
      {
        kind: SpanKind.SERVER,
        attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_HTTP_ROUTE]: route },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    return { span: new OtelSpan(span), run: (rest) => context.with(active, rest) };
  }

  start(name: string, options: SpanOptions = {}): TraceSpan {
    const { parent, kind = 'internal', attributes, startTime } = options;
    const from: Context =
      parent === undefined
        ? context.active()
        : parent === null
          ? ROOT_CONTEXT
          : propagation.extract(ROOT_CONTEXT, parent, storedContext);
    return new OtelSpan(
      this.tracer.startSpan(name, { kind: KINDS[kind], attributes, startTime, root: parent === null }, from),
    );
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}
