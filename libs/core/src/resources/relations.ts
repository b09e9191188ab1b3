import { Type } from '@nestjs/common';
import { JoinColumn, ManyToOne, OneToMany } from 'typeorm';

/**
 * The related entity: its class, or its class name (`'Warehouse'`) so that two entities relating to each
 * other import each other's type only (`import type`, with a `Relation<…>` property).
 */
export type RelationTarget = (() => Type) | string;

/**
 * A to-one reference through `<property>_uuid` (e.g. `location` → `location_uuid` → locations.uuid).
 * Declare the `<property>_uuid` column beside it; writes to it are checked to exist in the caller's company.
 */
export function BelongsTo(
  target: RelationTarget,
  options: { inverse?: string; onDelete?: 'CASCADE' | 'SET NULL' } = {},
) {
  return (prototype: object, property: string) => {
    const inverse = options.inverse;
    ManyToOne(target, inverse ? (record: any) => record[inverse] : undefined, {
      onDelete: options.onDelete ?? 'SET NULL',
      createForeignKeyConstraints: false,
    })(prototype, property);
    JoinColumn({ name: `${property}_uuid`, referencedColumnName: 'uuid' })(prototype, property);
  };
}

/** A to-many relationship whose children point back with `<inverse>_uuid` (e.g. sections → warehouse_uuid). */
export function HasMany(target: RelationTarget, inverse: string) {
  return (prototype: object, property: string) => {
    OneToMany(target, (record: any) => record[inverse])(prototype, property);
  };
}
