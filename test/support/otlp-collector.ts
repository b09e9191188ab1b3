import { Server, createServer } from 'node:http';
import { parse } from 'protobufjs';

/**
 * The messages of OTLP's trace export (opentelemetry/proto/collector/trace/v1/trace_service.proto and the
 * trace, resource and common protos it imports), with their field numbers, cut to what a test reads.
 */
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { repeated Span spans = 2; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  repeated KeyValue attributes = 9;
  Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; }
}
`;
const ExportRequest = parse(OTLP_TRACE_PROTO, { keepCase: false }).root.lookupType(
  'otlp.ExportTraceServiceRequest',
);

/** OTLP's SpanKind numbers. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
/** OTLP's status code of a failed span. */
export const STATUS_ERROR = 2;

/** A span as a test reads it: ids in hex, attributes as plain values, its process's resource attributes. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
  statusCode: number;
  /** How it arrived: `application/json` or `application/x-protobuf`. */
  encoding: string;
}

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string | { toNumber(): number };
  doubleValue?: number;
};
type KeyValue = { key: string; value?: AnyValue };

function plain(value: AnyValue | undefined): string | number | boolean {
  if (!value) return '';
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  const int = value.intValue;
  return typeof int === 'object' && int !== null ? int.toNumber() : Number(int ?? 0);
}

const attributes = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));

/** JSON carries ids as hex (OTLP/JSON), protobuf as bytes. */
const hex = (id: unknown) =>
  id === undefined || id === null
    ? ''
    : typeof id === 'string'
      ? id
      : Buffer.from(id as Uint8Array).toString('hex');

/** An in-process OTLP/HTTP collector: keeps every span POSTed to /v1/traces, in JSON or protobuf. */
export class OtlpCollector {
  readonly spans: ReceivedSpan[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const encoding = (req.headers['content-type'] ?? '').split(';')[0].trim();
        if (req.url !== '/v1/traces' || req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        this.take(Buffer.concat(chunks), encoding);
        res.writeHead(200, { 'content-type': encoding }).end(encoding === 'application/json' ? '{}' : '');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  private take(body: Buffer, encoding: string): void {
    const request =
      encoding === 'application/json'
        ? JSON.parse(body.toString('utf8'))
        : ExportRequest.toObject(ExportRequest.decode(body), { defaults: false });
    for (const resourceSpans of request.resourceSpans ?? []) {
      const resource = attributes(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          this.spans.push({
            traceId: hex(span.traceId),
            spanId: hex(span.spanId),
            parentSpanId: hex(span.parentSpanId),
            name: span.name,
            kind: Number(span.kind ?? 0),
            attributes: attributes(span.attributes),
            resource,
            statusCode: Number(span.status?.code ?? 0),
            encoding,
          });
    }
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
