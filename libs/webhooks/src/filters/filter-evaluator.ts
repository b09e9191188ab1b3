import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CompiledFilter, FilterClause, clausesOf, compileFilter, failingClause } from './filter-grammar';

/** Whether an event matches a filter and, when not, the clause that decided it (a pointer into the filter). */
export interface FilterVerdict {
  matches: boolean;
  failed_clause: { pointer: string; clause: unknown } | null;
}

/** The part of a JSON document a JSON pointer (RFC 6901) names. */
function at(document: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
}

/**
 * Explains filters with PostgreSQL's own evaluation (jsonb_path_match, as the fan-out runs them): every
 * clause of every filter against its event in one statement, then the failing clause found from those.
 */
@Injectable()
export class FilterEvaluator {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** `documents[i]` is the envelope (JSON text) `filters[i]` is tried against. */
  async explain(filters: unknown[], documents: string[]): Promise<FilterVerdict[]> {
    const compiled = filters.map((filter) => compileFilter(filter));
    const clauses = compiled.map((c) => (c ? clausesOf(c.root) : []));
    const rows = clauses.flatMap((list, i) =>
      list.map((clause) => ({
        doc: documents[i],
        path: clause.path,
        vars: (compiled[i] as CompiledFilter).vars,
      })),
    );
    const holds = rows.length
      ? (
          await this.dataSource.query(
            `SELECT jsonb_path_match(t.doc::jsonb, t.path::jsonpath, t.vars::jsonb) AS holds
             FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS t(doc, path, vars, i) ORDER BY t.i`,
            [rows.map((r) => r.doc), rows.map((r) => r.path), rows.map((r) => JSON.stringify(r.vars))],
          )
        ).map((row: { holds: boolean }) => row.holds)
      : [];
    let next = 0;
    return clauses.map((list, i) => {
      const results = new Map<FilterClause, boolean>(list.map((clause) => [clause, holds[next++]]));
      if (!list.length) return { matches: true, failed_clause: null };
      const failed = failingClause(list[0], (clause) => results.get(clause) === true);
      return {
        matches: !failed,
        failed_clause: failed ? { pointer: failed.pointer, clause: at(filters[i], failed.pointer) } : null,
      };
    });
  }
}
