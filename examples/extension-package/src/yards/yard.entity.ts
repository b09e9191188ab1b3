import { BaseResource, ResourceModel } from '@wharf/core';
import { Column, Entity } from 'typeorm';
import { YardDto } from './yard.dto';

@Entity('acme_yards')
@ResourceModel('yard', { dto: YardDto, searchable: ['name'] })
export class Yard extends BaseResource {
  @Column('varchar') name: string;
  @Column('integer') slots: number;
  @Column({ type: 'boolean', default: false }) closed: boolean;
}
