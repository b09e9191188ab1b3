import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Dependency, describeFailure, unavailableDependency } from '../common/outage';
import { HealthService } from './health.service';

const PROBE_EVERY_MS = 1000;

interface Outage {
  since: number;
  failures: number;
  timer?: NodeJS.Timeout;
}

/**
 * Turns a stream of identical failures into two log lines per outage: the first failure says which
 * service went away and why, and a probe (the health check's) reports when it is back with how many
 * operations failed meanwhile. Callers report failures instead of logging them.
 */
@Injectable()
export class OutageMonitor implements OnApplicationShutdown {
  private readonly logger = new Logger('outage');
  private readonly outages = new Map<Dependency, Outage>();
  private stopped = false;

  constructor(private readonly health: HealthService) {}

  /** Counts `error` against the service it says is unreachable; returns that service, or undefined. */
  report(error: unknown): Dependency | undefined {
    const dependency = unavailableDependency(error);
    if (dependency) this.failed(dependency, error);
    return dependency;
  }

  /** Records a failure the caller knows `dependency` caused (e.g. a Redis client's connection error). */
  failed(dependency: Dependency, error: unknown): void {
    const outage = this.outages.get(dependency);
    if (outage) {
      outage.failures++;
      return;
    }
    this.logger.warn({
      msg: `${dependency} unavailable: ${describeFailure(error)}`,
      dependency,
      outage: 'down',
    });
    this.outages.set(dependency, { since: Date.now(), failures: 1 });
    this.schedule(dependency);
  }

  isDown(dependency: Dependency): boolean {
    return this.outages.has(dependency);
  }

  private schedule(dependency: Dependency): void {
    const outage = this.outages.get(dependency);
    if (!outage || this.stopped) return;
    outage.timer = setTimeout(() => void this.probe(dependency), PROBE_EVERY_MS);
    outage.timer.unref();
  }

  private async probe(dependency: Dependency): Promise<void> {
    if ((await this.health.probe(dependency)) !== 'up') return this.schedule(dependency);
    const outage = this.outages.get(dependency);
    if (!outage) return;
    this.outages.delete(dependency);
    const seconds = ((Date.now() - outage.since) / 1000).toFixed(1);
    this.logger.log({
      msg: `${dependency} available again after ${seconds} s; ${outage.failures} operations failed meanwhile`,
      dependency,
      outage: 'up',
      failures: outage.failures,
    });
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    for (const outage of this.outages.values()) clearTimeout(outage.timer);
  }
}
