import { Client } from 'pg';

/** A node of a PostgreSQL plan as `EXPLAIN (FORMAT JSON)` gives it (the fields the plan specs read). */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Alias?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'CTE Name'?: string;
  'Parent Relationship'?: string;
  Strategy?: string;
  /** How many times the node ran (EXPLAIN ANALYZE only). */
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** The plan's nodes, its subplans and init plans included. */
export const planNodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(planNodes)];

/**
 * Runs `statement` under EXPLAIN ANALYZE in a transaction rolled back after it (and after `before`, run
 * first in it), and returns how many times the nodes `reads` picks ran: a count read from the executed
 * plan rather than inferred from timings.
 */
export async function executedLoops(
  client: Client,
  statement: string,
  reads: (node: PlanNode) => boolean,
  before: string[] = [],
): Promise<number> {
  await client.query('BEGIN');
  try {
    for (const step of before) await client.query(step);
    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`);
    return planNodes(rows[0]['QUERY PLAN'][0].Plan as PlanNode)
      .filter(reads)
      .reduce((loops, node) => loops + (node['Actual Loops'] ?? 0), 0);
  } finally {
    await client.query('ROLLBACK');
  }
}
