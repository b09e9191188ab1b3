import {
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  Min,
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
  it('turns class-validator rules into JSON Schema, optional fields nullable and not required', () => {
    expect(dtoSchema(SampleDto)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 20 },
        capacity: { type: 'integer', minimum: 0, nullable: true },
        kind: { enum: ['a', 'b'], nullable: true },
        parent_uuid: { type: 'string', format: 'uuid', nullable: true },
        tags: { type: 'array', minItems: 1, items: { type: 'string', maxLength: 8 } },
      },
      required: ['name', 'tags'],
    });
  });

  it('requires nothing for updates', () => {
    expect(dtoSchema(SampleDto, true).required).toBeUndefined();
  });
});
