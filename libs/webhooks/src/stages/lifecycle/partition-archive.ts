import { createWriteStream } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ArchivedRows } from '../../store/partitions.sql';
import { partitionStore } from '../../store/partitions.store';
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
  /** The rows: a table's (where `where` holds, with `params`), read by `key` (unique) in batches. */
  source: ArchivedRows & { params?: unknown[] },
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}.jsonl.gz`);
  const params = source.params ?? [];
  async function* lines() {
    let last: unknown = null;
    for (;;) {
      const rows = await partitionStore.archiveBatch(db, source, params, last, ARCHIVE_BATCH);
      if (!rows.length) return;
      yield rows.map((row) => `${row.line}\n`).join('');
      last = String(rows[rows.length - 1].key);
    }
  }
  await pipeline(lines(), createGzip(), createWriteStream(`${file}.partial`));
  await rename(`${file}.partial`, file);
  return file;
}
