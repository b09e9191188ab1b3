export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface HttpOptions {
  body?: unknown;
  /** Sent as-is (a string or Buffer), e.g. for malformed JSON. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  key?: string;
}

/** A small HTTP client for e2e tests: JSON in and out, never throws on error statuses. */
export async function http<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: HttpOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: any = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Polls until `check` returns a truthy value or the time is up. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `condition not met within ${timeoutMs} ms${last instanceof Error ? `: ${last.message}` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
