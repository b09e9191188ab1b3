import { Server, createServer } from 'node:http';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, Metrics, metricsHandler, portProblem } from '@wharf/core';

/** The worker has no HTTP api: GET /metrics is served by a small listener on METRICS_PORT (when set). */
@Injectable()
export class MetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('metrics');
  private server?: Server;

  constructor(
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.metricsPort) return;
    const server = createServer(metricsHandler(this.metrics, this.config.metricsToken));
    await new Promise<void>((resolve, reject) => {
      const port = this.config.metricsPort;
      server.once('error', (error) => reject(portProblem(error, port, 'METRICS_PORT') ?? error));
      server.listen(port, this.config.host, resolve);
    });
    this.server = server;
    this.logger.log(`metrics on http://${this.config.host}:${this.config.metricsPort}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server!.close(resolve));
  }
}
