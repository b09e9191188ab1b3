/**
 * The HTTP methods that only read: a request with one of them needs a `:read` permission, no portal write
 * header, may read on a replica, and leaves its caller's reads where they were.
 */
export const READ_ONLY_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
