// What tracing offers its callers, apart from the SDK behind it (otel-tracing.ts) and its start (tracing.ts).

/** A span's attributes: one whose value is undefined is left out (the SDK drops it). */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** How a span relates to its peers (OpenTelemetry's SpanKind, by name). */
export type SpanKindName = 'internal' | 'server' | 'client';

/** One span in the making. */
export interface TraceSpan {
  /**
   * The W3C trace context naming this span, as stored with an event: its `traceparent`, then a newline and
   * its `tracestate` when it has one.
   */
  readonly context: string;
  /** The W3C `traceparent` header naming this span. */
  readonly traceparent: string;
  set(attributes: SpanAttributes): void;
  /** Marks the span failed (status ERROR) with what went wrong. */
  failed(message: string): void;
  end(): void;
}

export interface SpanOptions {
  /**
   * The span's parent: a stored trace context (TraceSpan.context), null for none (a new trace), or
   * undefined for the span active in this async context (an api request's).
   */
  parent?: string | null;
  kind?: SpanKindName;
  attributes?: SpanAttributes;
  /** When it started (ms since the epoch), if before now. */
  startTime?: number;
}

/** The span of an api request, and how to run the rest of the request inside it. */
export interface ServedRequest {
  span: TraceSpan;
  run(rest: () => void): void;
}

export interface Tracing {
  /**
   * The server span of an api request: the child of the trace context its caller sent (`traceparent`,
   * `tracestate`), else the root of a new trace.
   */
  serve(method: string, route: string | undefined, headers: Record<string, unknown>): ServedRequest;
  start(name: string, options?: SpanOptions): TraceSpan;
  /** Ends the export: spans ended so far are sent (the processes call it as they shut down). */
  shutdown(): Promise<void>;
}

/** The OTLP protocols Wharf exports with. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** What startTracing reads of the standard OTEL_* variables; the exporters and the SDK read the rest. */
export interface TracingSettings {
  serviceName: string;
  protocol: OtlpProtocol;
}
