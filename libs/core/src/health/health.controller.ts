import { Controller, Get, Res } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import type { FastifyReply } from 'fastify';
import { HealthService } from './health.service';

@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  async check(@Res() reply: FastifyReply): Promise<void> {
    const report = await this.health.check();
    await reply.status(report.status === 'ok' ? 200 : 503).send(report);
  }
}
