import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ExtensionManifest } from '../extensions/extension.decorator';
import { dataSourceOptions } from './data-source';

@Module({})
export class DatabaseModule {
  /** `settings`: PostgreSQL settings for each connection of this process's pool (see dataSourceOptions). */
  static forRoot(
    databaseUrl: string,
    manifests: ExtensionManifest[],
    settings: Record<string, string> = {},
  ): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({ ...dataSourceOptions(databaseUrl, manifests, settings), retryAttempts: 0 }),
      ],
    };
  }
}
