import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** A key holding every permission (`["*"]`). */
export const API_KEY_PREFIX = 'wharf_live_';
/** A restricted key: it holds a list of permissions (as Stripe's `rk_…` keys tell theirs apart). */
export const RESTRICTED_KEY_PREFIX = 'wharf_rk_';
const BODY_LENGTH = 30; // 30 base62 characters ≈ 178 random bits
const CHECKSUM_LENGTH = 6;
const SHAPE = new RegExp(
  `^(?:${API_KEY_PREFIX}|${RESTRICTED_KEY_PREFIX})([0-9A-Za-z]{${BODY_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

function base62(value: number, length: number): string {
  let out = '';
  for (let rest = value; out.length < length; rest = Math.floor(rest / 62)) out = ALPHABET[rest % 62] + out;
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

/** A new key: recognisable prefix, random base62 body and a CRC32 checksum (GitHub's token format). */
export function generateApiKey(prefix = API_KEY_PREFIX): string {
  let body = '';
  for (let i = 0; i < BODY_LENGTH; i++) body += ALPHABET[randomInt(62)];
  return `${prefix}${body}${checksum(body)}`;
}

/** True when the key has the right shape and checksum, so typos are rejected without a database query. */
export function isWellFormedApiKey(key: string): boolean {
  const match = SHAPE.exec(key);
  return match !== null && checksum(match[1]) === match[2];
}
