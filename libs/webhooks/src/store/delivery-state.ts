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

/*
 * The store's SQL names states and outcomes only through these, so a misspelt name does not compile. The
 * predicates' text is that of the partial indexes' (migration 1700000000112), which the planner matches.
 */

/** A state as an SQL literal. */
export const stateLiteral = (state: DeliveryState) => `'${state}'`;

/** An outcome as an SQL literal. */
export const outcomeLiteral = (outcome: AttemptOutcome) => `'${outcome}'`;

/** SQL: delivery `d` is in one of `states`. */
export const isIn = (d: string, ...states: DeliveryState[]) =>
  states.length === 1
    ? `${d}.status = ${stateLiteral(states[0])}`
    : `${d}.status IN (${states.map(stateLiteral).join(', ')})`;

/** SQL: delivery `d` is admitted (in the queue window). */
export const admitted = (d: string) => isIn(d, 'admitted');

/** SQL: delivery `d` is not admitted yet and not finished (waiting or retrying). */
export const unadmitted = (d: string) => isIn(d, 'waiting', 'retrying');

/** SQL: delivery `d` is still to be delivered (waiting, admitted or retrying). */
export const pending = (d: string) => `${d}.status <> ${stateLiteral('failed')}`;

/** SQL: the state outcome `outcome` (an SQL expression, not `successful`) moves a delivery to (STATE_AFTER). */
export const stateAfter = (outcome: string) =>
  `CASE ${outcome} ${(['retrying', 'failed'] as const)
    .map((o) => `WHEN ${outcomeLiteral(o)} THEN ${stateLiteral(STATE_AFTER[o]!)}`)
    .join(' ')} END`;
