import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { READ_ONLY_METHODS } from '../common/read-only-methods';
import { ReadReplicasHost } from '../database/read-replicas.module';
import { RequestContext } from '../tenancy/request-context';
import type { SendStage, StageFor } from './pipeline-stage';

const passOn: SendStage = (_request, _reply, payload) => payload;

/**
 * Stage `read-your-writes`: once a request that may write has committed (its answer is on its way, after
 * `idempotency-answer` committed a keyed one), its caller's reads wait for a replica that has replayed it
 * (database/read-replicas.ts). Without DATABASE_REPLICA_URLS, and on routes that only read, it passes on.
 */
export function configureReadYourWrites(app: NestFastifyApplication): StageFor<'onSend'> {
  return (route) => {
    const replicas = app.get(ReadReplicasHost, { strict: false }).replicas;
    if (!replicas || route.methods.every((method) => READ_ONLY_METHODS.has(method))) return passOn;
    return (_request, reply, payload) => {
      // A refused request (4xx, 5xx) wrote nothing: its caller's reads need not wait for the replicas.
      if (reply.statusCode < 400) replicas.wrote(RequestContext.current());
      return payload;
    };
  };
}
