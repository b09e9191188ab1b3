import { ConfigError } from '../config/config';
import { MigrationFailedError } from '../schema/data-source';
import { ServiceUnavailableAtBoot } from '../database/preflight';
import { ExtensionError } from '../extensions/extension-error';
import { PortUnavailableError } from './port-check';

/**
 * Runs a process entry point. Problems an operator must fix (configuration, unreachable services)
 * are printed as one line without a stack trace, and the process exits non-zero.
 */
export function runMain(main: () => Promise<unknown>): void {
  main().catch((error: unknown) => {
    if (
      error instanceof ConfigError ||
      error instanceof ServiceUnavailableAtBoot ||
      error instanceof MigrationFailedError ||
      error instanceof ExtensionError ||
      error instanceof PortUnavailableError
    ) {
      process.stderr.write(`wharf: ${error.message}\n`);
    } else {
      process.stderr.write(`wharf: failed to start: ${(error as Error)?.stack ?? String(error)}\n`);
    }
    process.exit(1);
  });
}
