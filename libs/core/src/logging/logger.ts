import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';

/**
 * Structured JSON logs (production, tests, anything that collects them); in development pretty, coloured
 * lines through pino-pretty, which runs in pino's transport thread. Credentials are redacted wherever they
 * might appear.
 */
export function createLogger(service: string, level: string, pretty = false): Logger {
  return pino({
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
      ],
      censor: '[redacted]',
    },
  });
}

/**
 * Nest's bookkeeping at boot (a line per module, controller and route): debug, so what a process prints
 * at start (the api's address, the demo key) is not buried under it.
 */
const BOOKKEEPING = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

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
