/** A NOTIFY on the activity channel (see migration 1700000000116), parsed. */
export type ActivityNotice =
  | { kind: 'logs'; since: number; companies: string[] | '*' }
  | { kind: 'endpoint'; company: string; json: string };

/** `l|<epoch ms>|<uuid,uuid…|*>` or `e|<company>|<endpoint JSON>`; anything else is undefined. */
export function parseNotice(payload: string): ActivityNotice | undefined {
  const second = payload.indexOf('|', 2);
  if (payload[1] !== '|' || second < 0) return undefined;
  const [first, rest] = [payload.slice(2, second), payload.slice(second + 1)];
  if (payload[0] === 'e') return { kind: 'endpoint', company: first, json: rest };
  if (payload[0] !== 'l' || !/^\d+$/.test(first)) return undefined;
  return { kind: 'logs', since: Number(first), companies: rest === '*' ? '*' : rest.split(',') };
}

/** Forgets the rows sent before `before` (epoch ms) once the set has grown. */
export function forgetOld(seen: Map<string, number>, before: number): void {
  if (seen.size < 1000) return;
  for (const [uuid, sent] of seen) if (sent < before) seen.delete(uuid);
}
