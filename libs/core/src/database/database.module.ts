import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ExtensionManifest } from '../extensions/extension.decorator';
import { dataSourceOptions } from './data-source';

@Module({})
export class DatabaseModule {
  static forRoot(databaseUrl: string, manifests: ExtensionManifest[]): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [TypeOrmModule.forRoot({ ...dataSourceOptions(databaseUrl, manifests), retryAttempts: 0 })],
    };
  }
}
