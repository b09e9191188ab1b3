export * from './accounts.extension';
export * from './accounts.service';
export * from './api-key.entity';
export * from './api-key.format';
export * from './company.entity';
export * from './portal-session.entity';
export * from './portal-sessions.service';
export * from './api-key-revocations';
