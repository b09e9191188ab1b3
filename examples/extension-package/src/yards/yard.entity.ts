import { BaseResource, ResourceModel } from '@wharf/core';
import { Max, Min } from 'class-validator';
import { Column, Entity } from 'typeorm';

/** The one declaration of the resource: columns, and the validation they imply plus `@Min`/`@Max`. */
@Entity('acme_yards')
@ResourceModel('yard', { searchable: ['name'] })
export class Yard extends BaseResource {
  @Column('varchar') name: string;
  @Min(0) @Max(10_000) @Column('integer') slots: number;
  @Column({ type: 'boolean', default: false }) closed: boolean;
}
