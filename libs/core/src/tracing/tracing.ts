import { ConfigError, Env } from '../config/env-readers';

/*
 * OpenTelemetry tracing, off unless an OTLP endpoint is configured. This file loads no @opentelemetry
 * module: the SDK (otel-tracing.ts) is imported when startTracing finds an endpoint, so a process without
 * one never loads it, and every caller asks `tracing()` (undefined when off) before doing any tracing work.
 */

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

const set = (env: Env, name: string) => (env[name] ?? '').trim() !== '';

/**
 * The settings when tracing is on: an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and OTEL_SDK_DISABLED is not `true`; undefined otherwise.
 */
export function tracingSettings(env: Env, defaultService: string): TracingSettings | undefined {
  if (!set(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') && !set(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')) return;
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return;
  const variable = set(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (env[variable] ?? '').trim() || 'http/protobuf';
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol))
    throw new ConfigError(variable, `must be one of ${OTLP_PROTOCOLS.join(', ')}, got "${protocol}"`);
  const serviceName = (env.OTEL_SERVICE_NAME ?? '').trim() || defaultService;
  return { serviceName, protocol: protocol as OtlpProtocol };
}

let active: Tracing | undefined;

/** The process's tracing, or undefined when it is off. */
export const tracing = (): Tracing | undefined => active;

/**
 * Starts tracing if the environment configures it, naming the process `defaultService` unless
 * OTEL_SERVICE_NAME says otherwise. Call before the process composes its modules: stages and statements
 * decide once whether to trace.
 */
export async function startTracing(defaultService: string, env: Env = process.env): Promise<void> {
  const settings = tracingSettings(env, defaultService);
  if (!settings || active) return;
  const { OtelTracing } = await import('./otel-tracing');
  active = new OtelTracing(settings);
}

/** Sends the spans not yet exported and stops tracing. */
export async function stopTracing(): Promise<void> {
  const stopping = active;
  active = undefined;
  await stopping?.shutdown();
}

/** Flushes the traces once `app` has closed (a SIGTERM drains its work first, and that work's spans end). */
export function flushTracesOnClose<A extends { close(...args: never[]): Promise<void> }>(app: A): A {
  if (!active) return app;
  const close = app.close.bind(app);
  app.close = (async (...args: never[]) => {
    try {
      await close(...args);
    } finally {
      await stopTracing();
    }
  }) as A['close'];
  return app;
}
