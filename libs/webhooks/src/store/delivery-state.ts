/**
 * A delivery's life, as `webhook_deliveries.status` stores it (docs/delivery.md draws it):
 *
 * - `waiting`: created by fan-out (or put back by a resend/recover), not yet admitted to the queue.
 * - `admitted`: in the queue window, its job in BullMQ or about to be; sent when a send lease is free.
 * - `retrying`: an attempt failed with attempts left; waits until `next_attempt_at`, then is admitted again.
 * - `failed`: attempts exhausted, refused for good (410, blocked target) or its endpoint disabled; kept for recover.
 * - delivered: the row is deleted; its attempts stay in the request log, and a resend makes it again.
 *
 * Two conditions are worked out, not stored: an ordered endpoint's waiting delivery is held while an
 * earlier one of its record is pending (see inOrder), and a disabled endpoint's are failed when due.
 */
export const DELIVERY_STATES = ['waiting', 'admitted', 'retrying', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** How one attempt ended, as the metrics count it and the record applies it. */
export type AttemptOutcome = 'successful' | 'retrying' | 'failed';

/** The state an attempt's outcome moves its delivery to (null: delivered, the row goes). */
export const STATE_AFTER: Record<AttemptOutcome, DeliveryState | null> = {
  successful: null,
  retrying: 'retrying',
  failed: 'failed',
};

/** SQL: delivery `d` is not admitted yet and not finished (waiting or retrying). */
export const unadmitted = (d: string) => `${d}.status IN ('waiting', 'retrying')`;

/** SQL: delivery `d` is still to be delivered (waiting, admitted or retrying). */
export const pending = (d: string) => `${d}.status <> 'failed'`;
