import { QueryRunner } from 'typeorm';
import { DomainEvent, ResourceChange } from './resource-change';
import { Sql, sqlOf } from './resource-sql';

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

/** One write: its connection, company, and the changes/events that commit (or roll back) with it. */
export class WriteTransaction {
  readonly changes: ResourceChange[] = [];
  readonly events: DomainEvent[] = [];
  readonly sql: Sql;

  constructor(
    readonly queryRunner: QueryRunner,
    readonly companyUuid: string,
    private readonly declared?: DeclaredEvents,
  ) {
    this.sql = sqlOf(queryRunner);
  }

  /** Emit a custom domain event (e.g. `order.dispatched`) atomically with the write; it must be declared. */
  emit(event: DomainEvent): void {
    if (this.declared && !this.declared.admit(event)) return;
    this.events.push(event);
  }
}
