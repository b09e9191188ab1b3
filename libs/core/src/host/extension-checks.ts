import { ExtensionError } from '../extensions/extension-error';
import { Type } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import pluralize from 'pluralize';
import { getMetadataArgsStorage } from 'typeorm';
import { resourceModel } from '../resources/resource-model.decorator';
import { resourceEntity } from '../http/resource.decorator';
import { ExtensionManifest, extensionManifest } from '../extensions/extension.decorator';

/** Singular, lower-case, dash-separated: `warehouse-section`. */
export const RESOURCE_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** Why `name` cannot name a resource, or undefined when it can. */
export function resourceNameProblem(name: string): string | undefined {
  if (!RESOURCE_NAME.test(name)) {
    return `"${name}" is not a resource name: use lower-case words joined by dashes (e.g. "${name
      .replace(/([a-z\d])([A-Z])/g, '$1-$2')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .toLowerCase()}")`;
  }
  const words = name.split('-');
  const last = words[words.length - 1];
  if (pluralize.isPlural(last) && !pluralize.isSingular(last)) {
    words[words.length - 1] = pluralize.singular(last);
    return `"${name}" is plural: name the resource in the singular ("${words.join('-')}"); the routes use the plural`;
  }
  return undefined;
}

/** A class, as TypeORM's metadata records its targets. */
type Ctor = abstract new (...args: never[]) => unknown;

/** Every class of the inheritance chain of `target` (TypeORM columns of a base class apply to its subclasses). */
function chain(target: Ctor): Ctor[] {
  const classes: Ctor[] = [];
  for (let t = target; t && t !== Function.prototype; t = Object.getPrototypeOf(t)) classes.push(t);
  return classes;
}

export function entityColumns(entity: Ctor): Set<string> {
  const classes = chain(entity);
  return new Set(
    getMetadataArgsStorage()
      .columns.filter((column) => classes.includes(column.target as Ctor))
      .map((column) => column.propertyName),
  );
}

function entityRelations(entity: Ctor) {
  const classes = chain(entity);
  return getMetadataArgsStorage().relations.filter((relation) => classes.includes(relation.target as Ctor));
}

/** The DTO's validated properties: the fields a client may write. */
export function dtoFields(dto: Type): string[] {
  return [
    ...new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(dto, '', true, false)
        .map((metadata) => metadata.propertyName),
    ),
  ];
}

/**
 * What can be checked before anything connects: resource and controller names, the resource each
 * controller serves, the entities relations point at, and that a model's DTO, searchable and embedded
 * fields exist on its entity. Throws an ExtensionError for the first mistake.
 */
export function checkExtensions(modules: Type[]): void {
  const manifests = modules.map((module) => extensionManifest(module));
  const listed = new Set<Ctor>(manifests.flatMap((manifest) => manifest.entities));
  const models = new Set<string>();
  for (const manifest of manifests) {
    for (const entity of manifest.entities) checkEntity(manifest, entity, listed, models);
  }
  for (const manifest of manifests) {
    for (const controller of manifest.controllers ?? []) {
      const entity = resourceEntity(controller);
      if (entity && !listed.has(entity)) {
        throw new ExtensionError(
          manifest.name,
          `controller ${controller.name}`,
          `@Resource(${entity.name}) serves an entity no loaded extension lists in its \`entities\``,
        );
      }
    }
  }
}

function checkEntity(
  manifest: ExtensionManifest,
  entity: Type,
  listed: Set<Ctor>,
  models: Set<string>,
): void {
  const model = resourceModel(entity);
  const where = model ? `resource "${model.name}"` : `entity ${entity.name}`;
  const fail = (field: string | undefined, problem: string): never => {
    throw new ExtensionError(manifest.name, field ? `${where}, field "${field}"` : where, problem);
  };
  if (!getMetadataArgsStorage().tables.some((table) => table.target === entity)) {
    fail(
      undefined,
      `${entity.name} is listed in entities but is not a TypeORM @Entity() of this host (an extension must not bundle its own typeorm: declare it as a peer dependency)`,
    );
  }
  const relations = entityRelations(entity);
  for (const relation of relations) {
    const type = relation.type as unknown;
    const target = typeof type === 'function' ? (type as () => unknown)() : type;
    // A target named by a string (see RelationTarget) is a listed entity's class name.
    const found =
      typeof target === 'string'
        ? [...listed].some((candidate) => candidate.name === target)
        : typeof target !== 'function' || listed.has(target as Ctor);
    if (!found) {
      fail(
        relation.propertyName,
        `refers to entity ${typeof target === 'string' ? target : (target as Ctor).name}, which no loaded extension lists in its \`entities\``,
      );
    }
  }
  if (!model) return;
  const problem = resourceNameProblem(model.name);
  if (problem) fail(undefined, `@ResourceModel(${problem})`);
  models.add(model.name);
  const columns = entityColumns(entity);
  const relationNames = new Set(relations.map((relation) => relation.propertyName));
  for (const field of model.dto ? dtoFields(model.dto) : []) {
    if (!columns.has(field)) {
      fail(
        field,
        `the DTO ${model.dto!.name} declares it but entity ${entity.name} has no such column (add a @Column or remove it from the DTO)`,
      );
    }
  }
  for (const field of [
    ...(model.searchable ?? []),
    ...(model.sortable ?? []),
    ...(model.hidden ?? []),
    ...(model.readOnly ?? []),
    ...(model.visibility ? [model.visibility.column] : []),
  ]) {
    if (!columns.has(field)) fail(field, `listed in @ResourceModel but ${entity.name} has no such column`);
  }
  for (const field of model.embed ?? []) {
    if (!relationNames.has(field)) fail(field, `listed in \`embed\` but ${entity.name} has no such relation`);
  }
}
