import {
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { dtoSchema } from './dto-schema';

class SampleDto {
  @IsString() @MaxLength(20) name: string;
  @IsOptional() @IsInt() @Min(0) capacity?: number;
  @IsOptional() @IsIn(['a', 'b']) kind?: string;
  @IsOptional() @IsUUID() parent_uuid?: string;
  @IsArray() @ArrayNotEmpty() @IsString({ each: true }) @MaxLength(8, { each: true }) tags: string[];
}

describe('dtoSchema', () => {
  it('turns class-validator rules into JSON Schema (OpenAPI 3.1), optional fields nullable and not required', () => {
    expect(dtoSchema(SampleDto)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 20 },
        capacity: { type: ['integer', 'null'], minimum: 0 },
        kind: { type: ['string', 'null'], enum: ['a', 'b', null] },
        parent_uuid: { type: ['string', 'null'], format: 'uuid' },
        tags: { type: 'array', minItems: 1, items: { type: 'string', maxLength: 8 } },
      },
      required: ['name', 'tags'],
    });
  });

  it('reads a field checked only when sent (`@ValidateIf`) as optional, not nullable; objects hold anything', () => {
    class MetaDto {
      @ValidateIf((dto: MetaDto) => dto.meta !== undefined) @IsObject() meta?: Record<string, unknown>;
    }
    expect(dtoSchema(MetaDto)).toEqual({
      type: 'object',
      properties: { meta: { type: 'object', additionalProperties: true } },
    });
  });

  it('requires nothing for updates', () => {
    expect(dtoSchema(SampleDto, true).required).toBeUndefined();
  });
});
