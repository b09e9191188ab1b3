/** The largest request body read, in bytes. */
export const BODY_LIMIT = 1024 * 1024;

/** A byte count as people write limits: `1 MiB`, `512 KiB`, `1000 bytes`. */
export function byteSize(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
