/** A command used wrongly: one line, exit code 2. */
export class UsageError extends Error {}

/** Minimal argv parsing: positional arguments and `--flag value` / `--flag` options. */
export interface ParsedArgs {
  command: string | undefined;
  positional: string[];
  /** The last value of each option. */
  options: Record<string, string | true>;
  /** Every value of each option, in order (`--backfill a=1 --backfill b=2`). */
  repeated: Record<string, string[]>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const positional: string[] = [];
  const options: Record<string, string | true> = {};
  const repeated: Record<string, string[]> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      const separator = arg.indexOf('=');
      const name = separator < 0 ? arg.slice(2) : arg.slice(2, separator);
      const next = argv[i + 1];
      const value =
        separator >= 0
          ? arg.slice(separator + 1)
          : next !== undefined && !next.startsWith('--')
            ? argv[++i]
            : true;
      options[name] = value;
      if (value !== true) (repeated[name] ??= []).push(value);
    } else {
      positional.push(arg);
    }
  }
  return { command: positional.shift(), positional, options, repeated };
}
