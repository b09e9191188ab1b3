/**
 * A response body that is JSON text already (PostgreSQL built it): the reply serializer configureHttp installs
 * sends it as it is. Anything else that writes it as JSON (a test, another serializer) gets the same document.
 */
export class JsonText {
  constructor(readonly text: string) {}

  /** The document as a value, for code that needs the object rather than the bytes. */
  value<T = Record<string, unknown>>(): T {
    return JSON.parse(this.text) as T;
  }

  toJSON(): unknown {
    return this.value();
  }
}

/** `{"<key>": <text>}`: a record's or a page's JSON text under its root key. */
export function underKey(key: string, text: string): JsonText {
  return new JsonText(`{${JSON.stringify(key)}:${text}}`);
}
