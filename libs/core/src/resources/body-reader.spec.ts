import { Type } from 'class-transformer';
import { IsInt, IsString, ValidateNested } from 'class-validator';
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
});
