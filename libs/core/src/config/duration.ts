const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `250ms`, `5s`, `30m`, `2h`, `1d` (or a bare number of milliseconds) into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration (use e.g. 500ms, 5s, 30m, 2h)`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']);
}
