import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';

/**
 * Structured JSON logs (production, tests, anything that collects them); in development pretty, coloured
 * lines through pino-pretty, which runs in pino's transport thread. Credentials are redacted wherever they
 * might appear.
 */
export function createLogger(
  service: string,
  level: string,
  pretty = false,
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    transport: pretty
      ? {
          target: 'pino-pretty',
          options: {
            colorize: true,
            singleLine: true,
            translateTime: 'SYS:HH:MM:ss.l',
            messageFormat: '{service}{if context}/{context}{end}: {msg}',
            ignore: 'pid,hostname,service,context',
            // Only `err` (a stack) gets lines of its own; an `error` field stays on its line.
            errorLikeObjectKeys: ['err'],
          },
        }
      : undefined,
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        '*.secret',
        '*.api_key',
        'secret',
        'api_key',
        'req.headers.cookie',
        'headers.cookie',
        '*.token',
        'token',
      ],
      censor: '[redacted]',
    },
  };
  return destination && !pretty ? pino(options, destination) : pino(options);
}

/**
 * Nest's bookkeeping at boot (a line per module, controller and route, and "successfully started" before
 * the listen that may yet fail): debug, so what a process prints at start (the api's address, the demo
 * key) is not buried under it.
 */
const BOOKKEEPING = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

/** Routes Nest's own log calls (bootstrap, exceptions) into the same pino stream. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  private write(
    level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal',
    message: unknown,
    params: unknown[],
  ) {
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    if (message && typeof message === 'object') this.logger[level]({ context, ...message });
    else this.logger[level]({ context, extra: params.length ? params : undefined }, String(message));
  }

  log(message: unknown, ...params: unknown[]) {
    const context = params[params.length - 1];
    this.write(typeof context === 'string' && BOOKKEEPING.has(context) ? 'debug' : 'info', message, params);
  }
  error(message: unknown, ...params: unknown[]) {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]) {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]) {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]) {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]) {
    this.write('fatal', message, params);
  }
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger that becomes `parent.child(bindings)` at its first enabled call: Fastify makes a child
 * per request (its request id bound), and pino builds and redacts its bindings at once, for logs that at the
 * production level are almost never written.
 */
class LazyChildLogger {
  private made?: Logger;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: pino.Bindings,
    private readonly options: pino.ChildLoggerOptions,
  ) {}

  private real(): Logger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.real().child(bindings, options);
  }

  private write(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const log: (...values: unknown[]) => void = this.real()[level].bind(this.real());
    log(...args);
  }

  fatal(...args: unknown[]) {
    this.write('fatal', args);
  }
  error(...args: unknown[]) {
    this.write('error', args);
  }
  warn(...args: unknown[]) {
    this.write('warn', args);
  }
  info(...args: unknown[]) {
    this.write('info', args);
  }
  debug(...args: unknown[]) {
    this.write('debug', args);
  }
  trace(...args: unknown[]) {
    this.write('trace', args);
  }
}

/** Fastify's `childLoggerFactory`: each request's logger made only when it first writes (see LazyChildLogger). */
export function lazyChildLogger(
  parent: Logger,
  bindings: pino.Bindings,
  options: pino.ChildLoggerOptions,
): Logger {
  return new LazyChildLogger(parent, bindings, options) as unknown as Logger;
}
