import { OpenAPIObject } from '@nestjs/swagger';
import { createApi } from '@wharf/api';
import {
  AppConfig,
  ResourceDefinition,
  ResourceRegistry,
  buildOpenApiDocument,
  ensureDatabase,
} from '@wharf/core';
import { CatalogEvent, WebhookEventCatalog } from '@wharf/webhooks';

/** What the clients are generated from: the api's OpenAPI document, its resources and its event catalog. */
export interface ApiDescription {
  document: OpenAPIObject;
  resources: ResourceDefinition[];
  events: CatalogEvent[];
}

/** Builds the api in-process (not listening) with the configured extensions and reads its description. */
export async function describeApi(config: AppConfig): Promise<ApiDescription> {
  await ensureDatabase(config.databaseUrl);
  const app = await createApi({ ...config, logLevel: 'error' });
  try {
    await app.init();
    return {
      document: buildOpenApiDocument(app),
      resources: app.get(ResourceRegistry, { strict: false }).all(),
      events: app.get(WebhookEventCatalog, { strict: false }).all(),
    };
  } finally {
    await app.close();
  }
}
