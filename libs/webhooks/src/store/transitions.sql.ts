import { ADMISSION_CHUNKS } from '../tuning';
import { admitted, stateLiteral } from './delivery-state';

/*
 * The transitions of a delivery's state (delivery-state.ts) as SET lists: every UPDATE that moves a
 * delivery goes through one of these, so admitted_at and the admission number are set and cleared with the
 * state, never apart. Creating (fan-out, resend) is an INSERT of `waiting` or `admitted`; delivered is a
 * DELETE (record).
 */

/**
 * The admission number of chunk `chunk` (0 to ADMISSION_CHUNKS - 1) of one admitting statement: it names the
 * batch job of the deliveries the statement admits to one endpoint in that chunk (see deliveryBatchJobId).
 * The sequence is read once per statement (an uncorrelated sub-select is an init plan), so two statements
 * never share a number, however close together they start.
 */
export const admissionNumber = (chunk = '0') =>
  `((SELECT nextval('webhook_admission_seq')) * ${ADMISSION_CHUNKS} + ${chunk})`;

/** SET: → admitted, as chunk `chunk` of this statement's admission. */
export const toAdmitted = (chunk = '0') =>
  `status = ${stateLiteral('admitted')}, admitted_at = now(), admission = ${admissionNumber(chunk)}`;

/** SET: → `state` (an SQL expression naming waiting, retrying or failed): out of the queue window. */
export const toUnadmitted = (state: string) => `status = ${state}, admitted_at = NULL, admission = NULL`;

/** SET: → waiting and due now, unless admitted (a job on its way sends it anyway). */
export const toWaitingUnlessAdmitted = (d: string) =>
  `status = CASE WHEN ${admitted(d)} THEN ${stateLiteral('admitted')} ELSE ${stateLiteral('waiting')} END,
   next_attempt_at = now(), admitted_at = CASE WHEN ${admitted(d)} THEN ${d}.admitted_at END,
   admission = CASE WHEN ${admitted(d)} THEN ${d}.admission END`;
