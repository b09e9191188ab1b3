import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** Only the SHA-256 of a key is stored; the key itself is shown once, at creation. */
@Entity('api_keys')
export class ApiKey {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'uuid', unique: true })
  uuid: string;

  @Column({ type: 'uuid' })
  company_uuid: string;

  @Column({ type: 'varchar', nullable: true })
  name: string | null;

  @Column('varchar')
  prefix: string;

  @Column('varchar')
  last_four: string;

  @Column({ type: 'char', length: 64, unique: true })
  key_hash: string;

  /** A platform key may open a portal session for any company. */
  @Column({ type: 'boolean', default: false })
  platform: boolean;

  /** Permission names and wildcards (GET /int/v1/permissions); `["*"]`: every permission. */
  @Column({ type: 'jsonb', default: () => `'["*"]'` })
  permissions: string[];

  @Column({ type: 'timestamptz', nullable: true })
  last_used_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revoked_at: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
