import { ConfigError, Env } from '../config/env-readers';
import { OTLP_PROTOCOLS, OtlpProtocol, Tracing, TracingSettings } from './tracing.types';

/*
 * OpenTelemetry tracing, off unless an OTLP endpoint is configured. This file loads no @opentelemetry
 * module: the SDK (otel-tracing.ts) is imported when startTracing finds an endpoint, so a process without
 * one never loads it, and every caller asks `tracing()` (undefined when off) before doing any tracing work.
 */

export * from './tracing.types';

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
