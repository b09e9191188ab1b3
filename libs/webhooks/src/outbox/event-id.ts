import { randomFillSync } from 'node:crypto';

/*
 * An event id, the one definition of it: `evt_`, the event's creation time (epoch milliseconds) in
 * TIME_DIGITS base-36 digits, then RANDOM_BYTES random bytes in hex. Sortable by creation, unguessable, and
 * a range of ids is a range of creation times (the outbox is partitioned on it). newEventId makes one in
 * TypeScript, EVENT_ID_SQL in PostgreSQL (for the events a statement makes itself), both from these parts.
 */
const PREFIX = 'evt_';
const RADIX = 36;
const TIME_DIGITS = 9;
const RANDOM_BYTES = 10;

/**
 * What a request may name as an event id: the prefix, then base-36 digits and hex (ids of older writers
 * were shorter, so the length is bounded, not fixed).
 */
export const EVENT_ID = /^evt_[0-9a-z]{1,64}$/;

/** The prefix of every id made at `ms`: a bound of a partition or of a range of ids. */
export const eventIdAt = (ms: number) =>
  `${PREFIX}${Math.floor(ms).toString(RADIX).padStart(TIME_DIGITS, '0')}`;

/** The creation time (ms) an id, or a bound made by eventIdAt, begins with. */
export const eventIdTime = (id: string) =>
  parseInt(id.slice(PREFIX.length, PREFIX.length + TIME_DIGITS), RADIX);

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

/** A new event id, made now. */
export function newEventId(): string {
  return `${eventIdAt(Date.now())}${randomHex(RANDOM_BYTES)}`;
}

/**
 * A new event id as a PostgreSQL expression (text), made at the statement's time: the time read once
 * (per-digit reads of a running clock could straddle a millisecond), the random part from a v4 uuid's hex
 * (its version digit, the 13th, is fixed; the other 19 are random).
 */
export const EVENT_ID_SQL = (() => {
  const ms = '(extract(epoch FROM now()) * 1000)::bigint';
  const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, RADIX);
  const digits = Array.from(
    { length: TIME_DIGITS },
    (_, i) =>
      `substr('${alphabet}', (${ms} / ${RADIX ** (TIME_DIGITS - 1 - i)}::bigint % ${RADIX})::int + 1, 1)`,
  );
  const random = `left(replace(gen_random_uuid()::text, '-', ''), ${2 * RANDOM_BYTES})`;
  return `('${PREFIX}' || ${digits.join(' || ')} || ${random})`;
})();
