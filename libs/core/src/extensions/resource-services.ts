import { Inject, Injectable, Logger, Optional, Type } from '@nestjs/common';
import { DiscoveryService, ModuleRef, ModulesContainer } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import { ReadReplicasHost } from '../database/read-replicas.module';
import type { AppConfig } from '../config/config';
import { extensionManifest, isExtension } from './extension.decorator';
import type { ResourceDefinition, ResourceHooks, RowVisibility } from '../resources/resource-definition';
import { ResourceRegistry } from '../resources/resource-registry';
import { Referrer, ResourceService } from '../resources/resource.service';
import { DeclaredEvents } from '../resources/write-transaction';
import { WRITE_LISTENER, WriteListener } from '../resources/write-listener';

/** Hands out the (one, cached) ResourceService of each resource, by its entity class or its name. */
@Injectable()
export class ResourceServices {
  private readonly services = new Map<Type, ResourceService>();
  private readonly hooks = new Map<ResourceDefinition, ResourceHooks | undefined>();
  private readonly referrers = new Map<ResourceDefinition, Referrer[]>();

  constructor(
    readonly registry: ResourceRegistry,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly moduleRef: ModuleRef,
    private readonly discovery: DiscoveryService,
    private readonly modules?: ModulesContainer,
    @Optional() @Inject(APP_CONFIG) private readonly config?: AppConfig,
    @Optional() private readonly replicas?: ReadReplicasHost,
  ) {}

  private declared?: DeclaredEvents;
  private listeners?: WriteListener[];

  /**
   * The resource's service. By name (`'order'`), a hook can reach a resource whose entity refers to its own
   * without importing that entity back.
   */
  for(resource: Type | string): ResourceService {
    const entity = typeof resource === 'string' ? this.registry.get(resource).entity : resource;
    let service = this.services.get(entity);
    if (!service) {
      const def = this.registry.forEntity(entity);
      service = new ResourceService(
        def,
        this.dataSource,
        this.writeListeners(),
        (def) => this.hooksOf(def),
        (def) => this.referrersOf(def),
        this.declaredEvents(),
        def.visibility && this.moduleRef.get<RowVisibility>(def.visibility.by, { strict: false }),
        this.replicas?.replicas,
      );
      this.services.set(entity, service);
    }
    return service;
  }

  /** Every provider marked `@ResourceWriteListener()`, in any module (looked up once, after bootstrap). */
  private writeListeners(): WriteListener[] {
    this.listeners ??= [
      ...new Set(
        this.discovery
          .getProviders()
          .filter((wrapper) => wrapper.metatype && Reflect.getMetadata(WRITE_LISTENER, wrapper.metatype))
          .map((wrapper) => wrapper.instance as WriteListener)
          .filter((instance) => instance !== undefined && instance !== null),
      ),
    ];
    return this.listeners;
  }

  /** The custom events of every loaded extension: the only names `tx.emit` accepts. */
  private declaredEvents(): DeclaredEvents {
    if (!this.declared) {
      const names = [...(this.modules?.values() ?? [])]
        .map((module) => module.metatype)
        .filter(isExtension)
        .flatMap((module) => extensionManifest(module).events ?? [])
        .map((event) => event.name);
      const logger = new Logger('Events');
      this.declared = new DeclaredEvents(new Set(names), this.config?.nodeEnv !== 'production', (line) =>
        logger.error(line),
      );
    }
    return this.declared;
  }

  /** Every resource with a column that points at `def`'s records and is set to NULL when one is deleted. */
  private referrersOf(def: ResourceDefinition): Referrer[] {
    let referrers = this.referrers.get(def);
    if (!referrers) {
      referrers = this.registry
        .all()
        .flatMap((other) =>
          other.references
            .filter((reference) => reference.table === def.table && reference.onDelete === 'SET NULL')
            .map((reference) => ({ service: this.for(other.entity), column: reference.column })),
        );
      this.referrers.set(def, referrers);
    }
    return referrers;
  }

  /** The provider instance of a resource's `hooks` (registered by its extension), resolved once. */
  private hooksOf(def: ResourceDefinition): ResourceHooks | undefined {
    if (!def.hooks) return undefined;
    if (!this.hooks.has(def)) {
      this.hooks.set(def, this.moduleRef.get<ResourceHooks>(def.hooks, { strict: false }));
    }
    return this.hooks.get(def);
  }
}
