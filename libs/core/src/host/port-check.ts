import { createServer } from 'node:net';

/** Thrown when a port a process must listen on is taken or not allowed; its message is the one line printed. */
export class PortUnavailableError extends Error {}

/** The error to print for a listen on `port` (set by `variable`) that failed, or undefined for other failures. */
export function portProblem(
  error: unknown,
  port: number,
  variable: string,
): PortUnavailableError | undefined {
  switch ((error as { code?: string } | undefined)?.code) {
    case 'EADDRINUSE':
      return new PortUnavailableError(
        `port ${port} is already in use (is Wharf already running?): stop what listens there, or set ${variable}= to a free port`,
      );
    case 'EACCES':
      return new PortUnavailableError(
        `port ${port} needs privileges this process does not have: set ${variable}= to a port above 1023`,
      );
    default:
      return undefined;
  }
}

/**
 * Fails with one line when `port` cannot be listened on. Checked before anything starts, so a second
 * `npm start` says so instead of booting (and printing) until its listen fails.
 */
export async function assertPortFree(port: number, host: string, variable = 'PORT'): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(portProblem(error, port, variable) ?? error));
    server.listen({ port, host }, () => server.close(() => resolve()));
  });
}
