import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { hiddenEmbeds } from '../resources/resource-access';
import { resourceControllerInfo } from '../resources/resource-controller';
import type { ResourceDefinition } from '../resources/resource-definition';
import { ResourceRegistry } from '../resources/resource-registry';
import { ScopedRequest, addRouteConfig } from './access.hook';
import type { SendStage, StageFor } from './pipeline-stage';

/** The route config key of the resource whose records a @Resource controller's routes answer with. */
const ROUTE_EMBEDDING = 'wharfEmbedding';

type Record_ = Record<string, unknown>;

/**
 * Stage `embedded-reads`: an answer of a resource's routes leaves out the embedded records the caller may
 * not read (an order's `driver` for a key without `fleet.drivers:read`). Only on the routes of a resource
 * that embeds others; a caller holding every permission passes straight on.
 */
export function configureEmbeddedReads(app: NestFastifyApplication): StageFor<'onSend'> {
  const registry = app.get(ResourceRegistry, { strict: false });
  addRouteConfig(app, (controller) => {
    const resource = resourceControllerInfo(controller);
    const def = resource && registry.forEntity(resource.entity);
    return def?.embeds.length ? { [ROUTE_EMBEDDING]: def } : {};
  });
  return (route) => {
    const def = route.config[ROUTE_EMBEDDING] as ResourceDefinition | undefined;
    return def && leaveOutHidden(def);
  };
}

function leaveOutHidden(def: ResourceDefinition): SendStage {
  return (request, reply, payload) => {
    const grants = (request as ScopedRequest).wharfScope?.grants;
    if (!grants || grants.all || reply.statusCode >= 300) return payload;
    // A record's JSON text comes as a Buffer (JsonText.bytes), any other answer as a string.
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const hidden = hiddenEmbeds(def, grants);
    if (!hidden.length) return payload;
    const body = JSON.parse(payload.toString()) as Record_;
    const leaveOut = (record: unknown) => {
      if (record && typeof record === 'object')
        for (const property of hidden) delete (record as Record_)[property];
    };
    leaveOut(body[def.keys.singular]);
    const many = body[def.keys.plural];
    if (Array.isArray(many)) many.forEach(leaveOut);
    return JSON.stringify(body);
  };
}
