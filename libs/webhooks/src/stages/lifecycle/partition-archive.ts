import { createWriteStream } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ARCHIVE_BATCH } from '../../tuning';
import { Db } from './partitions';

/**
 * Writes rows about to be dropped to `<dir>/<name>.jsonl.gz`: one JSON object per line (row_to_json of
 * each row), gzip-compressed, streamed from the worker in keyset batches so a partition of any size takes
 * the memory of one batch. The file appears under its name only once complete.
 */
export async function archiveRows(
  db: Db,
  dir: string,
  name: string,
  /** The rows: a table (or `FROM … WHERE`), read by `key` (unique) in batches. */
  source: { from: string; key: string; keyType: 'text' | 'bigint'; where?: string; params?: unknown[] },
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}.jsonl.gz`);
  const params = source.params ?? [];
  const after = `$${params.length + 1}`;
  async function* lines() {
    let last: unknown = null;
    for (;;) {
      const { rows } = await db.query(
        `SELECT r.${source.key} AS key, row_to_json(r)::text AS line FROM ${source.from} r
         WHERE (${after}::${source.keyType} IS NULL OR r.${source.key} > ${after}::${source.keyType})
           ${source.where ? `AND ${source.where}` : ''}
         ORDER BY r.${source.key} LIMIT ${ARCHIVE_BATCH}`,
        [...params, last],
      );
      if (!rows.length) return;
      yield rows.map((row) => `${row.line}\n`).join('');
      last = String(rows[rows.length - 1].key);
    }
  }
  await pipeline(lines(), createGzip(), createWriteStream(`${file}.partial`));
  await rename(`${file}.partial`, file);
  return file;
}
