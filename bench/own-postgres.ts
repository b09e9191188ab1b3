import { execFile } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports';

const run = promisify(execFile);

/** The newest PostgreSQL server binaries Debian installed, or undefined. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : undefined;
}

function binaries(): string {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin');
  return bin;
}

/** A temporary directory for a server's data and socket, owned by the user the server runs as. */
async function ownDirectory(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'wharf-pg-'));
  if (userInfo().uid === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout), Number(gid));
  }
  return dir;
}

/**
 * A PostgreSQL server of the test's own (initdb into a temporary directory, trust auth, a free port), so
 * an outage test can stop and start it without touching the machine's shared server. initdb refuses to
 * run as root, so as root the server runs as the `postgres` system user.
 */
export class OwnPostgres {
  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    readonly port: number,
    /** Server settings (`-c name=value`) beside the ones every server of a test gets. */
    private readonly settings: string[] = [],
  ) {}

  /** `settings`: more `-c name=value` for the server, e.g. `log_connections=on`. */
  static async create(settings: string[] = []): Promise<OwnPostgres> {
    const server = new OwnPostgres(binaries(), await ownDirectory(), await freePort(), settings);
    await server.exec('initdb', [
      '-D',
      join(server.dir, 'data'),
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
    ]);
    // A streaming replica may be taken of it (standby()): trust for replication connections from here.
    appendFileSync(join(server.dir, 'data', 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    await server.start();
    return server;
  }

  /**
   * A streaming replica of this server on a port of its own: pg_basebackup -R copies the data directory
   * and writes standby.signal and primary_conninfo, so it starts as a hot standby replaying this one's WAL.
   */
  async standby(settings: string[] = this.settings): Promise<OwnPostgres> {
    const replica = new OwnPostgres(this.bin, await ownDirectory(), await freePort(), settings);
    await replica.exec('pg_basebackup', [
      '-D',
      join(replica.dir, 'data'),
      '-h',
      '127.0.0.1',
      '-p',
      String(this.port),
      '-U',
      'postgres',
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    await replica.start();
    return replica;
  }

  /** The postmaster's pid: the server's processes are it and its children. */
  pid(): number {
    return Number(readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  /** The server's log so far. */
  log(): string {
    return readFileSync(join(this.dir, 'log'), 'utf8');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    const options = [
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`,
      ...this.settings.map((setting) => `-c ${setting}`),
    ].join(' ');
    await this.exec('pg_ctl', [
      'start',
      '-w',
      '-t',
      '60',
      '-D',
      join(this.dir, 'data'),
      '-l',
      join(this.dir, 'log'),
      '-o',
      options,
    ]);
  }

  /** `fast` ends every session with 57P01, as an operator's restart does. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.exec('pg_ctl', ['stop', '-w', '-t', '60', '-m', mode, '-D', join(this.dir, 'data')]);
  }

  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async exec(tool: string, args: string[]): Promise<void> {
    const path = join(this.bin, tool);
    if (userInfo().uid === 0) await run('runuser', ['-u', 'postgres', '--', path, ...args], { cwd: '/' });
    else await run(path, args);
  }
}
