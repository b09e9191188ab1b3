/**
 * A response body that is JSON text already (PostgreSQL built it): the reply serializer configureHttp installs
 * sends it as it is. Anything else that writes it as JSON (a test, another serializer) gets the same document.
 *
 * Kept as its parts (PostgreSQL's text and the few bytes around it: a root key, a page's `meta`) and sent as
 * one Buffer written from them. Sent as a string, a page was copied twice more on the V8 heap: joined into one
 * flat string (for its length and ETag), then again behind the response's headers as Node wrote it.
 */
export class JsonText {
  private readonly parts: string[];

  constructor(...parts: string[]) {
    this.parts = parts;
  }

  /** The document as one string (joined lazily by V8: nothing is copied until it is read). */
  get text(): string {
    let text = '';
    for (const part of this.parts) text += part;
    return text;
  }

  /**
   * The document's UTF-8 bytes, written part by part (no part copied into another string first). Parts are
   * split at ASCII punctuation of the document, never inside a character.
   */
  bytes(): Buffer {
    let length = 0;
    for (const part of this.parts) length += Buffer.byteLength(part);
    const bytes = Buffer.allocUnsafe(length);
    let offset = 0;
    for (const part of this.parts) offset += bytes.write(part, offset);
    return bytes;
  }

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
  return new JsonText(`{${JSON.stringify(key)}:`, text, '}');
}
