import { Type } from '@nestjs/common';

export interface ResourceModelOptions {
  /** The class-validator DTO: its properties are the mass-assignable (writable) fields. */
  dto: Type;
  /** Columns the `query` parameter searches (case-insensitive substring). */
  searchable?: string[];
  /** Relations serialised inside every record (to-one and to-many), loaded in one query each. */
  embed?: string[];
  /** Columns never serialised nor filterable (e.g. secrets). */
  hidden?: string[];
}

export interface ResourceModelMetadata extends ResourceModelOptions {
  name: string;
}

const RESOURCE_MODEL = Symbol('wharf:resource-model');

/**
 * Marks a TypeORM entity as the model of a REST resource (SPEC 2.1): its singular name,
 * writable fields (via the DTO), searchable columns and embedded relationships.
 */
export function ResourceModel(name: string, options: ResourceModelOptions): ClassDecorator {
  return (target) => Reflect.defineMetadata(RESOURCE_MODEL, { name, ...options }, target);
}

export function resourceModel(target: unknown): ResourceModelMetadata | undefined {
  return Reflect.getMetadata(RESOURCE_MODEL, target as object);
}
