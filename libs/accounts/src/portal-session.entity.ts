import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A company's portal (the console in a frame of the platform's app); only hashes of its secrets are stored. */
@Entity('portal_sessions')
export class PortalSession {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'uuid', unique: true })
  uuid: string;

  @Column({ type: 'uuid' })
  company_uuid: string;

  @Column({ type: 'uuid' })
  created_by_company_uuid: string;

  @Column({ type: 'char', length: 64, unique: true })
  token_hash: string;

  @Column({ type: 'char', length: 64, unique: true, nullable: true })
  cookie_hash: string | null;

  @Column({ type: 'boolean', default: false })
  read_only: boolean;

  @Column({ type: 'jsonb', default: [] })
  features: string[];

  /** Permission names and wildcards, as an API key's; a read-only session's are `["*:read", "*:reveal"]`. */
  @Column({ type: 'jsonb', default: () => `'["*"]'` })
  permissions: string[];

  @Column({ type: 'text', nullable: true })
  return_url: string | null;

  @Column({ type: 'timestamptz' })
  expires_at: Date;

  @Column({ type: 'timestamptz', nullable: true })
  exchanged_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revoked_at: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;
}
