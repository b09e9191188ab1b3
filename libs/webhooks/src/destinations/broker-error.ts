import { describeError } from '../transport/http-answer';

/**
 * One line for what went wrong with a broker: a socket's error by the same names as an HTTP attempt's
 * (refused, dns, connection reset, timeout), else the client library's message. Messages never carry
 * credentials: the clients are given them as options, not in a URL.
 */
export function brokerError(error: unknown): string {
  const err = error as { code?: unknown; message?: string };
  if (typeof err?.code === 'string' && /^E[A-Z]+$/.test(err.code)) return describeError(error);
  const message = err?.message ?? String(error);
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}
