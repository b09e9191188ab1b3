import { ApiCallError, ApiTarget, apiTarget, callApi } from './api-client';
import { ParsedArgs, UsageError } from './args';
import { readEventStream } from './event-stream';

/** One delivery as the session's stream carries it (see the api's ListenChannel). */
interface Delivery {
  event: string;
  event_id: string;
  headers: Record<string, string>;
  body: string;
  deadline: number;
}

/** What the local URL answered, as posted back to the api. */
interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  duration_ms: number;
  error?: string;
}

interface Session {
  uuid: string;
  secret: string;
}

/** The answer's body is recorded up to this many characters (the request log's own bound). */
const ANSWER_BODY = 64 * 1024;
/**
 * The acknowledged answers a session remembers, newest kept: a retry comes within the retry schedule, and an
 * event older than these that comes again is forwarded again (at least once, as a webhook is).
 */
const ACKNOWLEDGED_KEPT = 1_000;
/** A stream silent this long (the api sends a comment every 15 s) is taken for dead and resumed. */
const SILENT_STREAM_MS = 45_000;
const RECONNECT_MS = [250, 500, 1000, 2000, 5000];
/** The least time a forward is given, whatever the clocks of this machine and the api's say. */
const MIN_FORWARD_MS = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Why a fetch got no answer, in a few words (`ECONNREFUSED`, `timeout`). */
function reason(error: unknown): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError') return 'timeout';
  return err.cause?.code ?? err.cause?.message ?? err.message ?? String(error);
}

function statusText(answer: Answer): string {
  return answer.status === undefined ? 'ERR' : String(answer.status);
}

/** Posts the forward's answer for the stream event `id` until the api has it or its sender stopped waiting. */
async function postAnswer(target: ApiTarget, session: string, id: string, answer: Answer, deadline: number) {
  for (let attempt = 0; ; attempt++) {
    try {
      await callApi(target, 'POST', `/int/v1/listen-sessions/${session}/answers`, { id, ...answer });
      return;
    } catch (error) {
      // A 4xx but 429 will not change; past the deadline nobody waits: the sender retries, the repeat is answered.
      const final = error instanceof ApiCallError && error.status < 500 && error.status !== 429;
      if (final || Date.now() > deadline) return;
      await sleep(RECONNECT_MS[Math.min(attempt, RECONNECT_MS.length - 1)]);
    }
  }
}

/** What the command line asks for: where to forward, and the session's subscription. */
function sessionRequest(args: ParsedArgs) {
  const forwardTo = args.options['forward-to'];
  if (typeof forwardTo !== 'string')
    throw new UsageError('listen needs --forward-to URL (e.g. http://localhost:4242/webhook)');
  const { events, payload, filter } = args.options;
  if (events === true || payload === true || filter === true)
    throw new UsageError('--events, --payload and --filter take a value');
  let parsedFilter: unknown;
  try {
    parsedFilter = filter === undefined ? undefined : JSON.parse(filter);
  } catch {
    throw new UsageError('--filter must be JSON, e.g. \'{"data.status": "completed"}\'');
  }
  return {
    forward_to: forwardTo,
    ...(events === undefined ? {} : { events: events.split(',').map((name) => name.trim()) }),
    ...(payload === undefined ? {} : { payload }),
    ...(parsedFilter === undefined ? {} : { filter: parsedFilter }),
  };
}

const out = (line: string) => process.stdout.write(`${line}\n`);

/** One open session: its stream read, each delivery forwarded and answered. */
class Listener {
  /** Events the receiver acknowledged (2xx) in this session, by id: a repeat is answered, not forwarded. */
  private readonly acknowledged = new Map<string, Answer>();
  private readonly inFlight = new Set<Promise<void>>();
  private lastEventId: string | undefined;
  private failures = 0;

  constructor(
    private readonly target: ApiTarget,
    private readonly session: Session,
    private readonly forwardTo: string,
  ) {}

  /** Reads the stream until `stop`, resuming after each cut from the last event it got. */
  async run(stop: AbortSignal): Promise<void> {
    while (!stop.aborted) {
      try {
        await this.read(stop);
        if (!stop.aborted) throw new Error('the api closed the stream');
      } catch (error) {
        if (stop.aborted) break;
        if (error instanceof ApiCallError && error.status < 500 && error.status !== 429) throw error;
        process.stderr.write(`Stream lost (${reason(error)}); resuming…\n`);
        await sleep(RECONNECT_MS[Math.min(this.failures++, RECONNECT_MS.length - 1)]);
      }
    }
    await Promise.all(this.inFlight);
  }

  private async read(stop: AbortSignal): Promise<void> {
    const resume: Record<string, string> = this.lastEventId ? { 'last-event-id': this.lastEventId } : {};
    const opened = () => {
      if (this.failures) process.stderr.write('Stream resumed.\n');
      this.failures = 0;
    };
    for await (const event of readEventStream(
      `${this.target.base}/int/v1/listen-sessions/${this.session.uuid}/stream`,
      { authorization: `Bearer ${this.target.key}`, ...resume },
      stop,
      SILENT_STREAM_MS,
      opened,
    )) {
      if (event.event !== 'delivery' || !event.id) continue;
      this.lastEventId = event.id;
      const pending = this.deliver(event.id, JSON.parse(event.data) as Delivery);
      this.inFlight.add(pending);
      void pending.finally(() => this.inFlight.delete(pending));
    }
  }

  private async deliver(id: string, delivery: Delivery): Promise<void> {
    out(`--> ${delivery.event} [${delivery.event_id}]`);
    let answer = this.acknowledged.get(delivery.event_id);
    if (answer) {
      out(
        `<-- [${statusText(answer)}] POST ${this.forwardTo} (repeat of an acknowledged event: not forwarded again)`,
      );
    } else {
      answer = await this.forward(delivery);
      const error = answer.error ? `: ${answer.error}` : '';
      out(`<-- [${statusText(answer)}] POST ${this.forwardTo} (${answer.duration_ms} ms)${error}`);
      if (answer.status !== undefined && answer.status >= 200 && answer.status < 300)
        this.remember(delivery.event_id, answer);
    }
    await postAnswer(this.target, this.session.uuid, id, answer, delivery.deadline);
  }

  private remember(eventId: string, answer: Answer): void {
    this.acknowledged.set(eventId, answer);
    // A Map keeps insertion order: its first key is the oldest.
    if (this.acknowledged.size > ACKNOWLEDGED_KEPT)
      this.acknowledged.delete(this.acknowledged.keys().next().value!);
  }

  private async forward(delivery: Delivery): Promise<Answer> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const response = await fetch(this.forwardTo, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(Math.max(MIN_FORWARD_MS, delivery.deadline - Date.now())),
      });
      const body = await response.text();
      return {
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: body.slice(0, ANSWER_BODY),
        duration_ms: elapsed(),
      };
    } catch (error) {
      return { duration_ms: elapsed(), error: reason(error) };
    }
  }
}

/**
 * `wharf listen --forward-to URL [--events a,b] [--payload thin] [--filter JSON] [--api URL] [--key KEY]`:
 * opens a listen session, prints its signing secret once, then forwards each delivery to URL with its
 * signature and posts back what URL answered; one line per event and one per answer. The stream resumes
 * after a cut from the last event it got. ^C ends the session.
 */
export async function listen(args: ParsedArgs): Promise<void> {
  const request = sessionRequest(args);
  const target = apiTarget(args);
  const { listen_session: session } = await callApi<{ listen_session: Session }>(
    target,
    'POST',
    '/int/v1/listen-sessions',
    { listen_session: request },
  );
  out(`Ready! Your webhook signing secret is ${session.secret} (^C to quit)`);
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await new Listener(target, session, request.forward_to).run(stopping.signal);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    // The session's endpoint goes; left behind (no api), the worker removes it after the grace period.
    await callApi(target, 'DELETE', `/int/v1/listen-sessions/${session.uuid}`).catch(() => undefined);
  }
  out('Session ended.');
}
