import { IncomingMessage, request } from 'node:http';

export interface StreamEvent {
  id?: string;
  event: string;
  data: any;
}

export interface EventStreamClient {
  status: number;
  headers: Headers;
  events: StreamEvent[];
  /** The raw text received so far (comments included). */
  text: () => string;
  /** Resolves with the first event (already received or to come) that `match` accepts. */
  next(match: (event: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent>;
  close(): void;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
}

/**
 * Opens a Server-Sent Events stream and parses its events as they come. With node:http: an aborted fetch
 * (undici) leaves a connection behind that holds the api's close.
 */
export async function openEventStream(
  url: string,
  headers: Record<string, string> = {},
): Promise<EventStreamClient> {
  const target = new URL(url);
  const req = request({
    host: target.hostname,
    port: target.port,
    path: `${target.pathname}${target.search}`,
    headers,
  });
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve).on('error', reject);
    req.end();
  });
  const events: StreamEvent[] = [];
  const waiters: { match: (event: StreamEvent) => boolean; resolve: (event: StreamEvent) => void }[] = [];
  let raw = '';
  let buffer = '';
  const push = (block: string) => {
    const event: StreamEvent = { event: 'message', data: undefined };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') event.id = value;
      else if (field === 'event') event.event = value;
      else if (field === 'data') data.push(value);
    }
    if (!data.length) return;
    event.data = JSON.parse(data.join('\n'));
    events.push(event);
    for (const waiter of [...waiters])
      if (waiter.match(event)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
  };
  response.setEncoding('utf8');
  response.on('data', (text: string) => {
    raw += text;
    buffer += text;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      push(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
    }
  });
  const ended = new Promise<void>((resolve) => response.on('close', () => resolve()));
  const headersOf = new Headers();
  for (const [name, value] of Object.entries(response.headers))
    if (typeof value === 'string') headersOf.set(name, value);
  return {
    status: response.statusCode ?? 0,
    headers: headersOf,
    events,
    text: () => raw,
    next(match, timeoutMs = 10_000) {
      const found = events.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching event within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (event) => {
            clearTimeout(timer);
            resolve(event);
          },
        });
      });
    },
    close: () => req.destroy(),
    ended,
  };
}
