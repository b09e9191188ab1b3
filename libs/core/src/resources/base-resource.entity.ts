import { Column, CreateDateColumn, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * Columns every resource has. Property names are the column names and the JSON names:
 * records go from PostgreSQL to the wire without a mapping layer. `id` is internal and never serialised.
 */
export abstract class BaseResource {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'uuid', unique: true, nullable: true })
  uuid: string;

  @Index()
  @Column({ type: 'uuid', nullable: true })
  company_uuid: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updated_at: Date;
}
