/** Raised before any socket is opened to a refused address; its message becomes the log's `blocked: …`. */
export class BlockedTargetError extends Error {
  readonly code = 'WHARF_BLOCKED_TARGET';
}
