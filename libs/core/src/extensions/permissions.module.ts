import { DynamicModule, Global, Module } from '@nestjs/common';
import { PermissionCatalog } from './permission-catalog';

/** Provides the host's permission catalog (composeHost builds and checks it) to every module. */
@Global()
@Module({})
export class PermissionsModule {
  static forRoot(catalog: PermissionCatalog): DynamicModule {
    return {
      module: PermissionsModule,
      providers: [{ provide: PermissionCatalog, useValue: catalog }],
      exports: [PermissionCatalog],
    };
  }
}
