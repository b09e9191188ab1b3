import { QueryRunner } from 'typeorm';
import type { DomainEvent, WriteTransaction } from './resource-definition';
import { sqlOf } from './sql-runner';

/**
 * The custom events the loaded extensions declare (`@Extension({ events })`). Emitting another name is a
 * programming error: it throws in development and tests, and in production the event is logged and
 * dropped (the write itself goes on) so that nothing undeclared reaches a subscriber.
 */
export class DeclaredEvents {
  constructor(
    private readonly names: ReadonlySet<string>,
    private readonly strict: boolean,
    private readonly log: (line: string) => void,
  ) {}

  admit(event: DomainEvent): boolean {
    if (this.names.has(event.name)) return true;
    const problem = `tx.emit("${event.name}"): no loaded extension declares this event in @Extension({ events })`;
    if (this.strict) throw new Error(`${problem}; declare it (name, description, example) or fix the name.`);
    this.log(`${problem}; the event was not emitted.`);
    return false;
  }
}

/** A write transaction (see WriteTransaction) on `queryRunner`'s open transaction. */
export function openWriteTransaction(
  queryRunner: QueryRunner,
  companyUuid: string,
  declared?: DeclaredEvents,
): WriteTransaction {
  const events: DomainEvent[] = [];
  return {
    queryRunner,
    companyUuid,
    sql: sqlOf(queryRunner),
    changes: [],
    events,
    emit(event) {
      if (!declared || declared.admit(event)) events.push(event);
    },
  };
}
