import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError, RequestContext, ResourceServices, attributePointer, poolOf } from '@wharf/core';
import { DataSource } from 'typeorm';
import { readActionBody } from './action-body';
import { ErasureRequestDto } from './erasure.dto';
import { ERASURE_OF, REQUEST_ERASURE } from '../erasure/erasure.sql';
import { emittedDeleted } from '../store/redaction.store';

/**
 * Erasure requests (the API side; the worker's ErasureRunner does the work). A record is the caller's when
 * the resource services find it in the caller's company, or when the company's own outbox holds its
 * `<resource>.deleted` event (a record deleted before its erasure was asked for).
 */
@Injectable()
export class ErasureService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly services: ResourceServices,
  ) {}

  /** `POST /erasures {resource, id}` */
  async request(body: unknown) {
    const { resource, id } = readActionBody(ErasureRequestDto, body, 'an erasure request');
    const def = this.services.registry.all().find((candidate) => candidate.name === resource);
    if (!def) {
      const names = this.services.registry
        .all()
        .map((candidate) => candidate.name)
        .sort();
      throw ApiError.invalid(attributePointer('resource'), `Unknown resource; one of: ${names.join(', ')}.`);
    }
    const record = id.toLowerCase();
    const company = RequestContext.companyUuid();
    await this.requireOwn(def.entity, `${def.keys.singular}.deleted`, company, record);
    const apiKey = RequestContext.current()?.apiKeyUuid ?? null;
    // A request racing another for the same record may see neither its own row nor the other's: again.
    for (let tries = 0; tries < 3; tries++) {
      const [job] = await this.dataSource.query(REQUEST_ERASURE, [company, def.name, record, apiKey]);
      if (job) return { erasure: job };
    }
    throw ApiError.of(409, 'Another erasure of this record is being requested: send the request again.');
  }

  /** `GET /erasures/:uuid` */
  async find(uuid: string) {
    const [job] = /^[0-9a-f-]{36}$/i.test(uuid)
      ? await this.dataSource.query(ERASURE_OF, [uuid, RequestContext.companyUuid()])
      : [];
    if (!job) throw ApiError.notFound();
    return { erasure: job };
  }

  private async requireOwn(
    entity: Parameters<ResourceServices['for']>[0],
    deleted: string,
    company: string,
    id: string,
  ) {
    try {
      await this.services.for(entity).find(id);
    } catch (error) {
      if (!(error instanceof ApiError) || error.getStatus() !== 404) throw error;
      if (!(await emittedDeleted(poolOf(this.dataSource), company, deleted, id))) throw error;
    }
  }
}
