import { OpenAPIObject } from '@nestjs/swagger';
import { createApi } from '@wharf/api';
import {
  AppConfig,
  PermissionCatalog,
  PermissionEntry,
  ResourceDefinition,
  ResourceRegistry,
  buildOpenApiDocument,
  ensureDatabase,
  runMigrations,
} from '@wharf/core';
import {
  CatalogEvent,
  DESTINATION_TYPES,
  DestinationTypeInfo,
  WebhookEventCatalog,
  composeWharf,
} from '@wharf/webhooks';
import { DataSource } from 'typeorm';

/** What the clients are generated from: the api's OpenAPI document, its resources and its event catalog. */
export interface ApiDescription {
  document: OpenAPIObject;
  resources: ResourceDefinition[];
  events: CatalogEvent[];
  /** Where endpoints can deliver: each destination type with its config's JSON Schema. */
  destinationTypes: DestinationTypeInfo[];
  /** The permission catalog (GET /int/v1/permissions). */
  permissions: PermissionEntry[];
  /** Column defaults of each resource's table that a client can apply itself (constants, not SQL). */
  defaults: Map<ResourceDefinition, Record<string, string | number | boolean>>;
}

function constantDefaults(dataSource: DataSource, def: ResourceDefinition) {
  const defaults: Record<string, string | number | boolean> = {};
  if (!dataSource.hasMetadata(def.entity)) return defaults;
  for (const column of dataSource.getMetadata(def.entity).columns) {
    const value: unknown = column.default;
    if (['string', 'number', 'boolean'].includes(typeof value)) {
      defaults[column.propertyName] = value as string | number | boolean;
    }
  }
  return defaults;
}

/** Builds the api in-process (not listening) with the configured extensions and reads its description. */
export async function describeApi(config: AppConfig): Promise<ApiDescription> {
  await ensureDatabase(config.databaseUrl);
  // The api refuses to boot on a schema behind its entities: bring the database up to date first.
  await runMigrations(config.databaseUrl, composeWharf(config).manifests);
  const app = await createApi({ ...config, logLevel: 'error' });
  try {
    await app.init();
    const resources = app.get(ResourceRegistry, { strict: false }).all();
    const dataSource = app.get(DataSource, { strict: false });
    return {
      document: buildOpenApiDocument(app),
      resources,
      events: app.get(WebhookEventCatalog, { strict: false }).all(),
      destinationTypes: DESTINATION_TYPES,
      permissions: app.get(PermissionCatalog, { strict: false }).entries,
      defaults: new Map(resources.map((def) => [def, constantDefaults(dataSource, def)])),
    };
  } finally {
    await app.close();
  }
}
