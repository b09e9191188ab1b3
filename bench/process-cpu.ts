import { readFileSync, readdirSync } from 'node:fs';
import { Redis } from 'ioredis';

const TICKS_PER_SECOND = 100;

export interface CpuReading {
  redis: number;
  self: number;
  /** CPU seconds of the worker process(es) and of every PostgreSQL process, by pid. */
  pids: Map<number, { part: string; seconds: number }>;
}

/** CPU seconds `pid` has used so far (user + system), from /proc; undefined when it is gone. */
export function procSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** `postgres: [cluster: ]user database host(port) activity`: a client backend's process title. */
const CLIENT_BACKEND = /^postgres: (?:\S+: )?\S+ (\S+) (?:\[local\]|\S+\(\d+\))/;
/** `postgres: [cluster: ]autovacuum worker database`. */
const AUTOVACUUM = /^postgres: (?:\S+: )?autovacuum worker (\S+)/;

let ownDatabase: string | undefined;

/**
 * Counts only the client backends and autovacuum workers of this database (and the shared background
 * processes: WAL writer, checkpointer): on a machine others share, their backends would otherwise be
 * counted as the bench's own.
 */
export function countPostgresOf(database: string): void {
  ownDatabase = database;
}

/** CPU seconds used so far by `pid` and by each of this database's PostgreSQL processes (see countPostgresOf). */
export function serverCpuSeconds(pid: number): { server: number; postgresql: Map<number, number> } {
  const postgresql = new Map<number, number>();
  for (const each of postgresPids()) {
    const seconds = procSeconds(each);
    if (seconds !== undefined) postgresql.set(each, seconds);
  }
  return { server: procSeconds(pid) ?? 0, postgresql };
}

/** CPU seconds of a server: `root` and every process right below it (a postmaster's backends), by pid. */
export function treeSeconds(root: number): Map<number, number> {
  const found = new Map<number, number>([[root, procSeconds(root) ?? 0]]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === root)
        found.set(Number(entry), procSeconds(Number(entry)) ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** CPU seconds between two readings by pid: a process that exited in between is left out, a new one counts whole. */
export function secondsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let seconds = 0;
  for (const [pid, now] of after) seconds += now - (before.get(pid) ?? 0);
  return seconds;
}

function postgresPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number)
      .filter((pid) => {
        try {
          if (!readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) return false;
          if (ownDatabase === undefined) return true;
          const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
          const own = CLIENT_BACKEND.exec(title) ?? AUTOVACUUM.exec(title);
          return !own || own[1] === ownDatabase;
        } catch {
          return false;
        }
      });
  } catch {
    return []; // not Linux: PostgreSQL is left out of the breakdown
  }
}

/** CPU used so far by each part of the pipeline: Linux /proc for processes here, INFO for Redis. */
export async function readCpu(redis: Redis, workerPids: number[]): Promise<CpuReading> {
  const info = await redis.info('cpu');
  const pids = new Map<number, { part: string; seconds: number }>();
  const add = (pid: number, part: string) => {
    const seconds = procSeconds(pid);
    if (seconds !== undefined) pids.set(pid, { part, seconds });
  };
  workerPids.forEach((pid) => add(pid, 'worker'));
  postgresPids().forEach((pid) => add(pid, 'postgresql'));
  const self = process.cpuUsage();
  return {
    redis: ['used_cpu_user', 'used_cpu_sys']
      .map((key) => Number(new RegExp(`${key}:([\\d.]+)`).exec(info)?.[1] ?? 0))
      .reduce((a, b) => a + b, 0),
    self: (self.user + self.system) / 1e6,
    pids,
  };
}

/**
 * Microseconds of CPU per item between two readings, by part. `self` is this benchmark process (the
 * receiver, and the api while idle). A process that exited in between is left out; one that started counts
 * whole.
 */
export function cpuPerItem(before: CpuReading, after: CpuReading, items: number, selfName: string) {
  const seconds: Record<string, number> = {
    [selfName]: after.self - before.self,
    redis: after.redis - before.redis,
  };
  for (const [pid, { part, seconds: now }] of after.pids) {
    seconds[part] = (seconds[part] ?? 0) + now - (before.pids.get(pid)?.seconds ?? 0);
  }
  const us = Object.fromEntries(
    Object.entries(seconds).map(([part, s]) => [part, Math.round((s * 1e6) / items)]),
  );
  return { ...us, total: Object.values(us).reduce((a, b) => a + b, 0) };
}
