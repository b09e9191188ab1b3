import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiUuidParam, Permission } from '@wharf/core';
import { ERASURE_SCHEMA, ErasureRequestDto } from './erasure.dto';
import { ErasureService } from './erasure.service';

/**
 * `/int/v1/erasures`: erase one record's data from the stored event payloads and request-log bodies of the
 * caller's company (GDPR right to erasure), as a job the worker runs; see docs/data-lifecycle.md.
 */
@ApiTags('erasures')
@Controller('erasures')
export class ErasuresController {
  constructor(private readonly erasures: ErasureService) {}

  @Post()
  @Permission('webhooks.erasures:write')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'createErasure',
    summary: 'Erase a record’s data from stored payloads and request logs',
    description:
      'Queues an erasure job. While one for the same record is pending or running, that one is returned.',
  })
  @ApiBody({ type: ErasureRequestDto })
  @ApiAcceptedResponse({ description: 'The erasure job.', schema: ERASURE_SCHEMA })
  request(@Body() body: unknown) {
    return this.erasures.request(body);
  }

  @Get(':uuid')
  @Permission('webhooks.erasures:read')
  @ApiOperation({
    operationId: 'getErasure',
    summary: 'An erasure job and its audit',
    description:
      'Poll this until `status` is `done` or `failed`: who asked, when, and how many rows were redacted.',
  })
  @ApiUuidParam()
  @ApiOkResponse({ description: 'The erasure job.', schema: ERASURE_SCHEMA })
  find(@Param('uuid') uuid: string) {
    return this.erasures.find(uuid);
  }
}
