import { Global, Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { OutageMonitor } from './outage-monitor';

/** The health checks and the outage monitor every process reports unreachable services to. */
@Global()
@Module({ providers: [HealthService, OutageMonitor], exports: [HealthService, OutageMonitor] })
export class OutageModule {}

/** GET /health (api only). */
@Module({ imports: [OutageModule], controllers: [HealthController] })
export class HealthModule {}
