import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator';
import type { FastifyReply } from 'fastify';
import { HealthService } from './health.service';

@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({ operationId: 'health', summary: 'Whether PostgreSQL and Redis are reachable' })
  @ApiOkResponse({ description: '{"status": "ok", …}' })
  @ApiServiceUnavailableResponse({ description: 'A dependency is down; the body says which.' })
  async check(@Res() reply: FastifyReply): Promise<void> {
    const report = await this.health.check();
    await reply.status(report.status === 'ok' ? 200 : 503).send(report);
  }
}
