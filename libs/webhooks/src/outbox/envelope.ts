import { randomFillSync } from 'node:crypto';
import { DomainEvent, ResourceChange } from '@wharf/core';

export const API_VERSION = 'v1';

/** The webhook envelope every event is delivered in. */
export interface Envelope {
  id: string;
  api_version: string;
  event: string;
  created_at: string;
  data: Record<string, unknown> & { id: unknown; additionalData: Record<string, unknown> };
}

/**
 * Random bytes drawn from the CSPRNG 4,000 at a time, as crypto.randomUUID does: randomBytes(10) per id
 * would be one call into OpenSSL (and a getpid) on every write.
 */
const RANDOM = Buffer.alloc(4000);
let randomUsed = RANDOM.length;

function randomHex(bytes: number): string {
  if (randomUsed + bytes > RANDOM.length) {
    randomFillSync(RANDOM);
    randomUsed = 0;
  }
  randomUsed += bytes;
  return RANDOM.toString('hex', randomUsed - bytes, randomUsed);
}

/** `evt_` + time-ordered, random suffix: sortable by creation and unguessable. */
export function newEventId(): string {
  return `evt_${Date.now().toString(36).padStart(9, '0')}${randomHex(10)}`;
}

export function envelope(
  event: string,
  record: Record<string, unknown>,
  additionalData: Record<string, unknown>,
  at: string,
): Envelope {
  return {
    id: newEventId(),
    api_version: API_VERSION,
    event,
    created_at: at,
    data: { id: record.uuid ?? record.id, ...record, additionalData },
  };
}

export function changeEnvelope(change: ResourceChange, at: string): Envelope {
  const additionalData = change.changes ? { changes: change.changes } : {};
  return envelope(`${change.resource.keys.singular}.${change.action}`, change.record, additionalData, at);
}

export function domainEnvelope(event: DomainEvent, at: string): Envelope {
  return envelope(event.name, event.record, event.additionalData ?? {}, at);
}
