import { Column, Entity } from 'typeorm';
import { LocationDto } from './location.dto';
import { BaseResource, ResourceModel } from '@wharf/core';

@Entity('locations')
@ResourceModel('location', { dto: LocationDto, searchable: ['name', 'city'] })
export class Location extends BaseResource {
  @Column('varchar') name: string;
  @Column('varchar', { nullable: true }) street: string | null;
  @Column('varchar', { nullable: true }) city: string | null;
  @Column('varchar', { nullable: true }) state: string | null;
  @Column('varchar', { nullable: true }) zip: string | null;
  @Column('varchar', { nullable: true }) country: string | null;
  @Column('double precision', { nullable: true }) latitude: number | null;
  @Column('double precision', { nullable: true }) longitude: number | null;
}
