import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../access/public.decorator';
import type { FastifyReply } from 'fastify';
import { HealthService } from './health.service';

const CHECK = { type: 'string', enum: ['up', 'down'] };
const HEALTH_SCHEMA = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded', 'error'] },
    checks: {
      type: 'object',
      properties: {
        database: CHECK,
        redis: CHECK,
        replicas: {
          type: 'array',
          description:
            'With read replicas (DATABASE_REPLICA_URLS) only: each one, in that order. `lagging`: further ' +
            'behind than DATABASE_REPLICA_MAX_LAG. Either way its reads go to the primary.',
          items: { type: 'string', enum: ['up', 'down', 'lagging'] },
        },
      },
      required: ['database', 'redis'],
    },
  },
  required: ['status', 'checks'],
};
const LIVE_SCHEMA = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['ok'] } },
  required: ['status'],
};

@Public()
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({
    operationId: 'health',
    summary: 'Whether the api can serve (readiness), and whether PostgreSQL and Redis are reachable',
    description:
      'Public (no API key): for load balancers, readiness probes and healthchecks. Each check is given ' +
      '1.5 s. Redis down is `degraded`, still 200: the api serves without it (unless `RATE_LIMIT_FAIL=closed`); ' +
      'so is a read replica down or lagging, whose reads go to the primary.',
  })
  @ApiOkResponse({
    description: 'The api serves: `ok`, or `degraded` while Redis or a read replica is down.',
    schema: HEALTH_SCHEMA,
  })
  @ApiServiceUnavailableResponse({
    description: 'The api cannot serve: PostgreSQL is down (or Redis, with `RATE_LIMIT_FAIL=closed`).',
    schema: HEALTH_SCHEMA,
  })
  async check(@Res() reply: FastifyReply): Promise<void> {
    const report = await this.health.check();
    await reply.status(report.status === 'error' ? 503 : 200).send(report);
  }

  @Get('live')
  @ApiOperation({
    operationId: 'liveness',
    summary: 'Whether the process answers (liveness)',
    description:
      'Public (no API key): for liveness probes. Checks no dependency, so an outage of PostgreSQL or Redis ' +
      'never gets a working process restarted.',
  })
  @ApiOkResponse({ description: 'The process answers.', schema: LIVE_SCHEMA })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }
}
