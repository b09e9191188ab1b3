import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HealthService } from './health.service';

@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  async check(@Res() reply: FastifyReply): Promise<void> {
    const report = await this.health.check();
    await reply.status(report.status === 'ok' ? 200 : 503).send(report);
  }
}
