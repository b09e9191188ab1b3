import { Type } from '@nestjs/common';
import { TransformationType, plainToInstance } from 'class-transformer';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
import { ValidationError, getMetadataStorage, validateSync } from 'class-validator';
import { ApiError, ErrorObject, errorObject } from '../common/api-error';
import { ATTRIBUTES_POINTER, BODY_POINTER } from '../common/pointer';
import { checkNestedWrites } from './resource-access';
import { EmbedInfo, ResourceDefinition } from './resource-definition';
import { firstProblem } from './type-first';

/**
 * Fields a client may echo back from a read; they are ignored on write (company_uuid comes from the key),
 * as are the resource's own `readOnly` columns.
 */
export const READ_ONLY_FIELDS = ['id', 'uuid', 'company_uuid', 'created_at', 'updated_at'];

export interface NestedItem {
  uuid?: string;
  values: Record<string, unknown>;
  pointer: string;
}

export interface WriteInput {
  values: Record<string, unknown>;
  toOne: Map<EmbedInfo, NestedItem | null>;
  toMany: Map<EmbedInfo, NestedItem[]>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One message per field problem: an absent required field is "required", not its type and length rules. */
function detailOf(error: ValidationError, resource: string): string | undefined {
  const constraints = error.constraints ?? {};
  if ('whitelistValidation' in constraints) return `${error.property} is not a field of ${resource}.`;
  if (error.value === undefined || error.value === null) return `${error.property} is required.`;
  const first = firstProblem(constraints);
  return first === undefined ? undefined : `${first}.`;
}

function flatten(errors: ValidationError[], pointer: string, out: ErrorObject[], resource: string): void {
  for (const error of errors) {
    const at = `${pointer}/${error.property}`;
    const detail = detailOf(error, resource);
    if (detail) out.push(errorObject(422, detail, { source: { pointer: at } }));
    if (error.children?.length) flatten(error.children, at, out, resource);
  }
}

// class-transformer exposes its decorators' storage only as a file, which is how @nestjs/mapped-types reads it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const storage = require('class-transformer/cjs/storage') as { defaultMetadataStorage: MetadataStorage };
const transformRules = storage.defaultMetadataStorage;

interface DtoShape {
  /** The properties it declares (any validation decorator): own names only, never `constructor`. */
  fields: Set<string>;
  /**
   * Whether it carries class-transformer rules too (`@Type`, `@Transform`, `@Expose`, `@Exclude`; an
   * extension's own DTO may), so that its instance must be built by plainToInstance.
   */
  transformed: boolean;
}

const shapeOfDto = new WeakMap<Type, DtoShape>();

/** What validateDto needs to know of a DTO, read from the decorators' storages once per DTO. */
function shapeOf(dto: Type): DtoShape {
  let shape = shapeOfDto.get(dto);
  if (!shape) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    const fields = new Set(metadata.map((entry) => entry.propertyName));
    const transformed =
      transformRules.getStrategy(dto) !== 'none' ||
      transformRules.getExposedMetadatas(dto).length > 0 ||
      transformRules.getExcludedMetadatas(dto).length > 0 ||
      [...fields].some(
        (field) =>
          transformRules.findTypeMetadata(dto, field) !== undefined ||
          transformRules.findTransformMetadatas(dto, field, TransformationType.PLAIN_TO_CLASS).length > 0,
      );
    shape = { fields, transformed };
    shapeOfDto.set(dto, shape);
  }
  return shape;
}

/**
 * Validates `data` against a class-validator DTO and returns the errors. Unknown fields are found here by
 * own-property lookup in the DTO's declared names: class-validator's whitelist looks names up in a plain
 * object, so `constructor` or `toString` would pass it and reach the SQL as column names.
 */
export function validateDto(
  dto: Type,
  data: Record<string, unknown>,
  partial: boolean,
  pointer: string,
  resource: string,
) {
  const errors: ErrorObject[] = [];
  const { fields, transformed } = shapeOf(dto);
  const known: Record<string, unknown> = {};
  for (const key of Object.keys(data)) {
    if (fields.has(key)) known[key] = data[key];
    else
      errors.push(
        errorObject(422, `${key} is not a field of ${resource}.`, {
          source: { pointer: `${pointer}/${key}` },
        }),
      );
  }
  // Without class-transformer rules (entityDto's DTOs and the hand-written action bodies), plainToInstance
  // builds just this, plus copies validation does not need, on every write.
  const instance = transformed
    ? plainToInstance(dto, known)
    : Object.assign(new (dto as new () => object)(), known);
  // Every failed rule of a field, not the first to run: detailOf reports the one that says most.
  flatten(
    validateSync(instance as object, {
      whitelist: true,
      forbidNonWhitelisted: true,
      skipMissingProperties: partial,
    }),
    pointer,
    errors,
    resource,
  );
  return errors;
}

function withoutReadOnly(data: Record<string, unknown>, alsoDrop: string[] = []): Record<string, unknown> {
  const copy = { ...data };
  for (const field of [...READ_ONLY_FIELDS, ...alsoDrop]) delete copy[field];
  return copy;
}

function nested(
  embed: EmbedInfo,
  raw: unknown,
  pointer: string,
  partialWithoutUuid: boolean,
  errors: ErrorObject[],
): NestedItem | null {
  const target = embed.target();
  if (!isObject(raw)) {
    errors.push(errorObject(422, `${embed.property} must be an object.`, { source: { pointer } }));
    return null;
  }
  // Stock Ember Data serializers send the primary key as `id`; it names the same record as `uuid`.
  const given = raw.uuid ?? raw.id;
  const uuid = typeof given === 'string' ? given : undefined;
  if (raw.uuid != null && raw.id != null && raw.uuid !== raw.id) {
    errors.push(
      errorObject(422, 'id and uuid name different records; send one of them.', {
        source: { pointer: `${pointer}/id` },
      }),
    );
  }
  const values = withoutReadOnly(raw, [
    ...(embed.kind === 'many' ? [embed.column] : []),
    ...(target.readOnly ?? []),
  ]);
  errors.push(
    ...validateDto(target.dto, values, uuid !== undefined || partialWithoutUuid, pointer, target.name),
  );
  return { uuid, values, pointer };
}

/**
 * The record of a body wrapped in its resource's key: the key responses use (`warehouse_section`) or the
 * resource's name (`warehouse-section`), as the routes and event names spell it. A lone object under any
 * other key that is no field of the resource is refused with the key it expects, not "not a field".
 */
function unwrap(def: ResourceDefinition, body: unknown): unknown {
  if (!isObject(body)) return body;
  const keys = Object.keys(body);
  if (keys.length !== 1 || !isObject(body[keys[0]])) return body;
  const [key] = keys;
  if (key === def.keys.singular || key === def.name) return body[key];
  const isField = shapeOf(def.dto).fields.has(key) || def.embeds.some((embed) => embed.property === key);
  if (isField) return body;
  const alias = def.name === def.keys.singular ? '' : ` (or "${def.name}")`;
  throw ApiError.invalid(
    `${ATTRIBUTES_POINTER}/${key}`,
    `${key} is not a field of ${def.name}; wrap the record in "${def.keys.singular}"${alias} or send its fields unwrapped.`,
  );
}

/**
 * Reads a create/update body: `{"<resource>": {...}}` or the flat object. Read-only fields are dropped,
 * embedded relationships are split off and validated with their own resource's DTO. Throws one 422 with
 * every problem found.
 */
export function readWriteBody(def: ResourceDefinition, body: unknown, partial: boolean): WriteInput {
  const root = ATTRIBUTES_POINTER;
  const data = unwrap(def, body);
  if (!isObject(data))
    throw ApiError.invalid(
      BODY_POINTER,
      `The body must be a JSON object (optionally under "${def.keys.singular}").`,
    );

  const errors: ErrorObject[] = [];
  const own = withoutReadOnly(data, [...(def.readOnly ?? [])]);
  const toOne = new Map<EmbedInfo, NestedItem | null>();
  const toMany = new Map<EmbedInfo, NestedItem[]>();
  for (const embed of def.embeds) {
    if (!Object.hasOwn(own, embed.property)) continue;
    const raw = own[embed.property];
    delete own[embed.property];
    const pointer = `${root}/${embed.property}`;
    if (embed.kind === 'one') {
      toOne.set(embed, raw === null ? null : nested(embed, raw, pointer, false, errors));
    } else if (!Array.isArray(raw)) {
      errors.push(errorObject(422, `${embed.property} must be an array.`, { source: { pointer } }));
    } else if (raw.length > embed.maxItems) {
      errors.push(
        errorObject(
          422,
          `${embed.property} may hold at most ${embed.maxItems} items in one write (got ${raw.length}).`,
          { source: { pointer } },
        ),
      );
    } else {
      toMany.set(
        embed,
        raw
          .map((item, index) => nested(embed, item, `${pointer}/${index}`, false, errors))
          .filter((item) => item !== null),
      );
    }
  }
  errors.unshift(...validateDto(def.dto, own, partial, root, def.name));
  if (errors.length) throw new ApiError(422, errors);
  const input = { values: own, toOne, toMany };
  checkNestedWrites(def, input);
  return input;
}
