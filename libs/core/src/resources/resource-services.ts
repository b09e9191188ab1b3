import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { WRITE_LISTENERS, WriteListener } from './resource-change';
import { ResourceRegistry } from './resource-registry';
import { ResourceService } from './resource.service';

/** Hands out the (one, cached) ResourceService of each resource by its singular name. */
@Injectable()
export class ResourceServices {
  private readonly services = new Map<string, ResourceService>();

  constructor(
    readonly registry: ResourceRegistry,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional() @Inject(WRITE_LISTENERS) private readonly listeners: WriteListener[] = [],
  ) {}

  for(name: string): ResourceService {
    let service = this.services.get(name);
    if (!service) {
      service = new ResourceService(this.registry.get(name), this.dataSource, this.listeners ?? []);
      this.services.set(name, service);
    }
    return service;
  }
}
