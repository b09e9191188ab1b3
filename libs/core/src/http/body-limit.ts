import { Transform, TransformCallback } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../common/api-error';
import { BODY_LIMIT, byteSize } from '../common/body-size';

export { BODY_LIMIT, byteSize };

/**
 * How much of an oversize body is read and dropped so that its 413 reaches the client: closing a connection
 * with request bytes still arriving resets it, and the client's TCP stack may throw the answer away with it
 * (Node's fetch: "fetch failed" under its upload). Past this many bytes the connection is closed.
 */
export const DISCARD_FACTOR = 16;

function tooLarge(limit: number): ApiError {
  return ApiError.of(413, `The body is larger than the ${byteSize(limit)} limit.`, {
    meta: { limit_bytes: limit },
  });
}

/** A chunked body passed on up to `limit`; past it read and dropped to its end (or `discard`), then a 413. */
class CappedBody extends Transform {
  private received = 0;

  constructor(
    private readonly limit: number,
    private readonly discard: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.discard) callback(tooLarge(this.limit));
    else callback(null, this.received > this.limit ? undefined : chunk);
  }

  override _flush(callback: TransformCallback): void {
    callback(this.received > this.limit ? tooLarge(this.limit) : undefined);
  }
}

/**
 * Refuses a body over `limit` bytes with a 413 that says the limit, and reads the rest of it first (up to
 * DISCARD_FACTOR times the limit): one announced by its content-length is refused before the parser reads
 * any, the connection kept open so that Node reads and drops the rest after the answer; a chunked one is
 * read to its end, and the 413 follows.
 */
export function limitBodies(fastify: FastifyInstance, limit: number): void {
  const discard = limit * DISCARD_FACTOR;
  // Connections still reading the rest of a refused body: the answer is out, so closing the server does not
  // wait for a client that stopped sending it (it would hold the shutdown until Node's request timeout).
  const draining = new Set<Socket>();
  fastify.addHook('preClose', (done) => {
    for (const socket of draining) socket.destroy();
    done();
  });
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    const declared = Number(request.headers['content-length']);
    if (declared > limit) {
      if (declared > discard) void reply.header('connection', 'close');
      else drain(draining, request.raw);
      done(tooLarge(limit));
    } else if (request.headers['transfer-encoding'] !== undefined) {
      const capped = new CappedBody(limit, discard);
      payload.on('error', (error) => capped.destroy(error));
      done(null, payload.pipe(capped));
    } else done(null, payload);
  });
}

/** Keeps the connection of a refused body in `draining` until its body has been read or it closed. */
function drain(draining: Set<Socket>, request: IncomingMessage): void {
  const socket = request.socket;
  draining.add(socket);
  const drained = () => draining.delete(socket);
  request.once('end', drained);
  socket.once('close', drained);
}
