import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { validateDto } from './body-reader';

class PlainDto {
  @IsInt() count!: number;
}

class CoercedDto {
  @Type(() => Number) @IsInt() count!: number;
}

class Child {
  @IsString() name!: string;
}

class ParentDto {
  @ValidateNested() @Type(() => Child) child!: Child;
}

/** Rules written as an author does, type first: decorators register bottom-up, so they run type last. */
class VehicleLikeDto {
  @IsString() @MaxLength(255) plate_number!: string;
  @IsOptional() @IsInt() @Min(1900) @Max(2100) year?: number;
  @IsOptional() @IsBoolean() active?: boolean;
  @IsOptional() @IsUUID() @MaxLength(36) owner_uuid?: string;
  @IsOptional() @IsISO8601() @Matches(/^2/) seen_at?: string;
  @IsOptional() @IsIn(['open', 'closed']) @MaxLength(6) status?: string;
  @IsOptional() @IsObject() @Matches(/x/) meta?: object;
}

const validate = (dto: new () => object, data: Record<string, unknown>) =>
  validateDto(dto, data, false, '/data/attributes', 'thing');

describe('validateDto', () => {
  it('validates a DTO of class-validator rules as sent', () => {
    expect(validate(PlainDto, { count: 3 })).toEqual([]);
    expect(validate(PlainDto, { count: '3' })).toEqual([
      expect.objectContaining({ status: '422', source: { pointer: '/data/attributes/count' } }),
    ]);
  });

  it("applies a DTO's class-transformer rules before validating (an extension's DTO may carry them)", () => {
    expect(validate(CoercedDto, { count: '3' })).toEqual([]);
    expect(validate(ParentDto, { child: { name: 'a' } })).toEqual([]);
    expect(validate(ParentDto, { child: { name: 5 } })).toEqual([
      expect.objectContaining({ source: { pointer: '/data/attributes/child/name' } }),
    ]);
  });

  it('a wrong type is reported as such, whatever other rule also fails on it and in whichever order', () => {
    const detail = (data: Record<string, unknown>) =>
      validate(VehicleLikeDto, { plate_number: 'X', ...data }).map((e) => [e.source?.pointer, e.detail]);
    const at = (field: string) => `/data/attributes/${field}`;
    for (const year of ['1999', true, 'abc', [1999], { y: 1 }])
      expect(detail({ year })).toEqual([[at('year'), 'year must be an integer number.']]);
    expect(detail({ plate_number: 123 })).toEqual([[at('plate_number'), 'plate_number must be a string.']]);
    expect(detail({ active: 'yes' })).toEqual([[at('active'), 'active must be a boolean value.']]);
    expect(detail({ owner_uuid: 12 })).toEqual([[at('owner_uuid'), 'owner_uuid must be a UUID.']]);
    expect(detail({ seen_at: 5 })).toEqual([
      [at('seen_at'), 'seen_at must be a valid ISO 8601 date string.'],
    ]);
    expect(detail({ status: 1 })).toEqual([
      [at('status'), 'status must be one of the following values: open, closed.'],
    ]);
    expect(detail({ meta: 'x' })).toEqual([[at('meta'), 'meta must be an object.']]);
    // A value of the right type still gets the rule it breaks.
    expect(detail({ year: 2200 })).toEqual([[at('year'), 'year must not be greater than 2100.']]);
    expect(detail({ plate_number: 'x'.repeat(256) })).toEqual([
      [at('plate_number'), 'plate_number must be shorter than or equal to 255 characters.'],
    ]);
  });
});
