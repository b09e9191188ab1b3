import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../access/public.decorator';
import type { FastifyReply } from 'fastify';
import { HealthService } from './health.service';

const CHECK = { type: 'string', enum: ['up', 'down'] };
const HEALTH_SCHEMA = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'error'] },
    checks: {
      type: 'object',
      properties: { database: CHECK, redis: CHECK },
      required: ['database', 'redis'],
    },
  },
  required: ['status', 'checks'],
};

@Public()
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({
    operationId: 'health',
    summary: 'Whether PostgreSQL and Redis are reachable',
    description: 'Public (no API key): for load balancers and orchestrators. Each check is given 1.5 s.',
  })
  @ApiOkResponse({ description: 'Both are reachable.', schema: HEALTH_SCHEMA })
  @ApiServiceUnavailableResponse({
    description: 'A dependency is down; `checks` says which.',
    schema: HEALTH_SCHEMA,
  })
  async check(@Res() reply: FastifyReply): Promise<void> {
    const report = await this.health.check();
    await reply.status(report.status === 'ok' ? 200 : 503).send(report);
  }
}
