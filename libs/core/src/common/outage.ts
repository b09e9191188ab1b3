export type Dependency = 'database' | 'redis';

/** SQLSTATEs meaning the server went away or refuses connections (08 connection exception, 57P0x shutdown). */
const PG_UNAVAILABLE = /^(08|57P0[1-3]|53300)/;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** pg and pg-pool say these without a code. */
const PG_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|not queryable|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command|Query read timeout/i;
/** ioredis's errors while the server is away (no offline queue, retries exhausted, closed connection). */
const REDIS_MESSAGES =
  /Connection is closed|Stream isn't writeable|max retries per request|Command timed out|ClusterAllFailedError|Failed to refresh slots cache|None of startup nodes is available/i;

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current && chain.length < 5;) {
    chain.push(current);
    const next = (current as { driverError?: unknown }).driverError ?? (current as { cause?: unknown }).cause;
    if (next === current) break;
    current = next;
  }
  return chain;
}

/**
 * Which backing service an error says is unreachable, or undefined when the error is about the request.
 * Redis is recognised by ioredis's own errors; any other connection-class failure is PostgreSQL's, the
 * only other service a request talks to.
 */
export function unavailableDependency(error: unknown): Dependency | undefined {
  for (const err of causes(error)) {
    const { code, message, name } = err as { code?: unknown; message?: unknown; name?: unknown };
    const text = typeof message === 'string' ? message : '';
    if (name === 'MaxRetriesPerRequestError' || name === 'ClusterAllFailedError' || REDIS_MESSAGES.test(text))
      return 'redis';
    if (typeof code === 'string' && (PG_UNAVAILABLE.test(code) || NETWORK_CODES.has(code))) return 'database';
    if (PG_MESSAGES.test(text)) return 'database';
    // Node's happy-eyeballs connect reports each address's failure inside an AggregateError.
    if (err instanceof AggregateError && err.errors.some((inner) => unavailableDependency(inner)))
      return unavailableDependency(err.errors.find((inner) => unavailableDependency(inner)));
  }
  return undefined;
}

/** A short reason to log, e.g. "ECONNREFUSED" or "57P01 terminating connection …". */
export function describeFailure(error: unknown): string {
  const chain = causes(error);
  const err = chain[chain.length - 1] as { code?: string; message?: string };
  const nested = error instanceof AggregateError ? (error.errors[0] as { code?: string }) : undefined;
  const code = err?.code ?? nested?.code;
  const message = err?.message || (error as Error)?.message || String(error);
  return code && !message.includes(code) ? `${code} ${message}`.trim() : message;
}
