import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

import { SECRET_PREFIX } from '../transport/signature';

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** AES-256-GCM with APP_KEY: `v1.<iv>.<tag>.<ciphertext>` (base64url parts). */
export function encryptSecret(secret: string, appKey: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', appKey, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function decryptSecret(stored: string, appKey: Buffer): string {
  const [version, iv, tag, ciphertext] = stored.split('.');
  if (version !== 'v1') throw new Error('unknown secret encryption version');
  const decipher = createDecipheriv('aes-256-gcm', appKey, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}

/** No configured key opens a stored secret (APP_KEY changed without APP_KEY_PREVIOUS, or data corrupted). */
export class UnreadableSecretError extends Error {
  constructor(readonly endpoint: string) {
    super(
      `The signing secret of webhook endpoint ${endpoint} cannot be decrypted with APP_KEY or APP_KEY_PREVIOUS`,
    );
  }
}

/** APP_KEY and, during a key rotation, APP_KEY_PREVIOUS. */
export interface AppKeys {
  appKey: Buffer;
  appKeyPrevious?: Buffer;
}

/** A stored secret opened: `resealed` is its encryption under APP_KEY when it was opened with the previous key. */
export interface OpenedSecret {
  secret: string;
  resealed?: string;
}

/** Opens a stored secret with APP_KEY, else APP_KEY_PREVIOUS; undefined when neither opens it. */
export function openSecret(stored: string, keys: AppKeys): OpenedSecret | undefined {
  for (const key of [keys.appKey, keys.appKeyPrevious]) {
    if (!key) continue;
    try {
      const secret = decryptSecret(stored, key);
      return key === keys.appKey ? { secret } : { secret, resealed: encryptSecret(secret, keys.appKey) };
    } catch {
      // not this key: try the next
    }
  }
  return undefined;
}
