import { useEffect } from 'preact/hooks';
import { ApiFailure, RequestLog, authHeaders, notifySignedOut, session } from './api';

/** An endpoint's state as the stream sends it when it changes. */
export interface EndpointState {
  uuid: string;
  status: 'enabled' | 'disabled';
  disabled_at: string | null;
  disabled_reason: string | null;
  throttled: boolean;
  throttled_reason: string | null;
  verified_at: string | null;
}

export type LiveEvent =
  | { type: 'request_log'; log: RequestLog }
  | { type: 'endpoint'; endpoint: EndpointState }
  /** The stream (re)connected: what it could not replay (endpoint states) may be reloaded. */
  | { type: 'open' };

const listeners = new Set<(event: LiveEvent) => void>();
let running: AbortController | null = null;
let lastEventId: string | undefined;
let retryMs = 3000;

/**
 * The tab's one Server-Sent Events connection (GET /int/v1/webhook-activity/stream), read with fetch so it
 * carries the API key header as well as the portal cookie. Reconnects after `retry` ms with Last-Event-ID,
 * so rows sent meanwhile are replayed.
 */
export function startLive(): void {
  if (running) return;
  const controller = new AbortController();
  running = controller;
  void connect(controller);
}

export function stopLive(): void {
  running?.abort();
  running = null;
  lastEventId = undefined;
}

async function connect(controller: AbortController): Promise<void> {
  while (!controller.signal.aborted) {
    try {
      const headers: Record<string, string> = { ...authHeaders(), accept: 'text/event-stream' };
      if (lastEventId) headers['last-event-id'] = lastEventId;
      const response = await fetch('/int/v1/webhook-activity/stream', {
        headers,
        credentials: 'same-origin',
        signal: controller.signal,
      });
      if (response.status === 401) throw new ApiFailure(401, 'signed out');
      if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
      emit({ type: 'open' });
      await read(response.body, controller.signal);
    } catch (caught) {
      if (controller.signal.aborted) return;
      if (caught instanceof ApiFailure && caught.status === 401) {
        running = null;
        if (session.portal()) notifySignedOut();
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}

async function read(body: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  while (!signal.aborted) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      dispatch(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
    }
  }
}

/** One event block: `id:`, `event:`, `data:` and `retry:` lines; `:` lines are comments (heartbeats). */
function dispatch(block: string): void {
  let type = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') lastEventId = value;
    else if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
    else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value);
  }
  if (!data.length) return;
  const parsed = JSON.parse(data.join('\n'));
  if (type === 'request_log') emit({ type, log: parsed as RequestLog });
  else if (type === 'endpoint') emit({ type, endpoint: parsed as EndpointState });
}

function emit(event: LiveEvent): void {
  for (const listener of listeners) listener(event);
}

/** Calls `listener` with every live event while the component is mounted. */
export function useLive(listener: (event: LiveEvent) => void, deps: unknown[] = []): void {
  useEffect(() => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, deps);
}
