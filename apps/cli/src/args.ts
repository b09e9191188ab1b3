/** Minimal argv parsing: positional arguments and `--flag value` / `--flag` options. */
export interface ParsedArgs {
  command: string | undefined;
  positional: string[];
  options: Record<string, string | true>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const positional: string[] = [];
  const options: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split('=', 2);
      const next = argv[i + 1];
      if (inline !== undefined) options[name] = inline;
      else if (next !== undefined && !next.startsWith('--')) options[name] = argv[++i];
      else options[name] = true;
    } else {
      positional.push(arg);
    }
  }
  return { command: positional.shift(), positional, options };
}
