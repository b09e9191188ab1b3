import { ParsedArgs, UsageError } from './args';

/** Where a running api is and the key to call it with: `--api`, `--key`, else the environment. */
export interface ApiTarget {
  base: string;
  key: string;
}

/** `--api URL` (default WHARF_API_URL, else the `npm start` address) and `--key KEY` (default WHARF_API_KEY). */
export function apiTarget(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): ApiTarget {
  const api = args.options.api;
  const key = args.options.key;
  if (api === true || key === true) throw new UsageError('--api and --key take a value');
  const base = (api ?? env.WHARF_API_URL ?? `http://localhost:${env.PORT || 3000}`).replace(/\/+$/, '');
  try {
    new URL(base);
  } catch {
    throw new UsageError(`--api must be the api's URL (http://localhost:3000), got "${base}"`);
  }
  const chosen = key ?? env.WHARF_API_KEY;
  if (!chosen)
    throw new UsageError(
      '--key KEY (or WHARF_API_KEY) is needed: an API key of the company (npm start prints the demo company’s)',
    );
  return { base, key: chosen };
}

/** An api answer that was not a success: its status and the first error's detail. */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

/** A JSON call to the api with the key; throws ApiCallError with the api's own words on a 4xx or 5xx. */
export async function callApi<T>(
  target: ApiTarget,
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  const response = await fetch(`${target.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${target.key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await refusal(response);
  const text = await response.text();
  try {
    return (text ? JSON.parse(text) : undefined) as T;
  } catch {
    return undefined as T;
  }
}

/** The ApiCallError of an answer that was not what was asked for: the api's error detail, else its text's start. */
export async function refusal(response: Response): Promise<ApiCallError> {
  const text = await response.text();
  let detail: string | undefined;
  try {
    detail = (JSON.parse(text) as { errors?: { detail?: string }[] }).errors?.[0]?.detail;
  } catch {
    // not the api's error format: its text
  }
  return new ApiCallError(
    response.status,
    `the api answered ${response.status}: ${detail ?? text.slice(0, 200)}`,
  );
}
