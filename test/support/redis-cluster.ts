import { ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './http';
import { freePort } from './ports';

const run = promisify(execFile);

/** Whether Debian's redis-server and redis-cli are installed (the cluster test needs both). */
export function redisClusterBinaries(): boolean {
  return ['redis-server', 'redis-cli'].every((tool) => spawnSync(tool, ['--version']).status === 0);
}

/** A throwaway Redis Cluster of `masters` nodes on free local ports, without replicas or persistence. */
export class RedisCluster {
  private constructor(
    private readonly dir: string,
    private readonly servers: ChildProcess[],
    readonly ports: number[],
  ) {}

  static async start(masters = 3): Promise<RedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'wharf-redis-cluster-'));
    const ports: number[] = [];
    while (ports.length < masters) {
      const port = await freePort();
      if (!ports.includes(port)) ports.push(port);
    }
    const servers = ports.map((port) =>
      spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
        ],
        { stdio: 'ignore' },
      ),
    );
    const cluster = new RedisCluster(dir, servers, ports);
    try {
      for (const port of ports)
        await eventually(() => cluster.cli(port, 'ping').then((out) => out === 'PONG'), 10_000);
      await run('redis-cli', [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ]);
      for (const port of ports)
        await eventually(
          async () => (await cluster.cli(port, 'cluster', 'info')).includes('cluster_state:ok'),
          20_000,
        );
    } catch (error) {
      cluster.stop();
      throw error;
    }
    return cluster;
  }

  get nodes(): string {
    return this.ports.map((port) => `127.0.0.1:${port}`).join(',');
  }

  async cli(port: number, ...args: string[]): Promise<string> {
    const { stdout } = await run('redis-cli', ['-p', String(port), ...args]);
    return stdout.trim();
  }

  stop(): void {
    for (const server of this.servers) server.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
