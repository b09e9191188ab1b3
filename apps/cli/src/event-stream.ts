import { refusal } from './api-client';

/** One Server-Sent Event: its id (the stream's last id so far), its name and its data. */
export interface StreamEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** Server-Sent Events parsing, per the HTML spec: text in, whole events out. */
export class EventParser {
  private buffer = '';
  private id: string | undefined;
  private event = '';
  private data: string[] = [];

  push(text: string): StreamEvent[] {
    this.buffer += text;
    const events: StreamEvent[] = [];
    let end: number;
    while ((end = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      // A CR last may be the first half of a CRLF: one line end, not two.
      if (end === this.buffer.length - 1 && this.buffer.endsWith('\r')) break;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (this.data.length)
          events.push({ id: this.id, event: this.event || 'message', data: this.data.join('\n') });
        this.event = '';
        this.data = [];
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') this.id = value;
        else if (field === 'event') this.event = value;
        else if (field === 'data') this.data.push(value);
      }
    }
    return events;
  }
}

/**
 * Reads a Server-Sent Events response (GET `url` with `headers`) event by event. `onOpen` runs once the
 * api answered 200. Throws ApiCallError for another status, the fetch's error when the connection breaks,
 * or a timeout when nothing (not even a comment) came for `silentMs`.
 */
export async function* readEventStream(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  silentMs: number,
  onOpen: () => void = () => undefined,
): AsyncGenerator<StreamEvent> {
  const silence = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const heard = () => {
    clearTimeout(timer);
    timer = setTimeout(() => silence.abort(new Error('timeout: the stream went silent')), silentMs);
  };
  heard();
  try {
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream', ...headers },
      signal: AbortSignal.any([signal, silence.signal]),
    });
    if (response.status !== 200 || !response.body) throw await refusal(response);
    onOpen();
    const decoder = new TextDecoder();
    const parser = new EventParser();
    for await (const chunk of response.body) {
      heard();
      yield* parser.push(decoder.decode(chunk as Uint8Array, { stream: true }));
    }
  } catch (error) {
    throw silence.signal.aborted ? silence.signal.reason : error;
  } finally {
    clearTimeout(timer);
  }
}
