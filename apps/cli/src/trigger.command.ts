import { readFileSync } from 'node:fs';
import { apiTarget, callApi } from './api-client';
import { ParsedArgs, UsageError } from './args';

interface Triggered {
  webhook_trigger: {
    event: string;
    event_id: string;
    webhook_request_logs: {
      url: string;
      response_status: number | null;
      duration_ms: number;
      error: string | null;
    }[];
  };
}

/** The JSON object of `--data file.json`. */
function dataFile(path: string | true | undefined): Record<string, unknown> | undefined {
  if (path === undefined) return undefined;
  if (path === true) throw new UsageError('--data takes a file (a JSON object: the event’s data)');
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--data ${path}: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new UsageError(`--data ${path}: the file must hold a JSON object (the event’s data)`);
  return data as Record<string, unknown>;
}

/**
 * `wharf trigger <event> [--data file.json] [--api URL] [--key KEY]`: sends one test event of that name
 * (the catalog's example, or the file's data) to every enabled endpoint and listen session subscribed to
 * it, as the console's test send does, and prints what each answered.
 */
export async function trigger(args: ParsedArgs): Promise<void> {
  const event = args.positional[0];
  if (!event) throw new UsageError('trigger needs an event name (e.g. wharf trigger order.created)');
  const data = dataFile(args.options.data);
  const target = apiTarget(args);
  const { webhook_trigger: sent } = await callApi<Triggered>(
    target,
    'POST',
    `/int/v1/webhook-events/${encodeURIComponent(event)}/trigger`,
    data === undefined ? {} : { data },
  );
  const logs = sent.webhook_request_logs;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    `Triggered ${sent.event} [${sent.event_id}]: sent to ${logs.length} endpoint${logs.length === 1 ? '' : 's'}`,
  );
  for (const log of logs) {
    const error = log.error ? `: ${log.error}` : '';
    out(`  [${log.response_status ?? 'ERR'}] ${log.url} (${log.duration_ms} ms)${error}`);
  }
}
