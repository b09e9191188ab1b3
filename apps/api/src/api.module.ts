import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER, RouterModule } from '@nestjs/core';
import {
  AllExceptionsFilter,
  AppConfig,
  AccessModule,
  DatabaseModule,
  HealthModule,
  MetricsModule,
  TracingModule,
  HostComposition,
  PermissionsModule,
  ReadReplicasModule,
  ResourcesModule,
  WharfConfigModule,
  extensionManifest,
} from '@wharf/core';

/** The HTTP process: core resources, every loaded extension under its namespace, health. */
@Module({})
export class ApiModule {
  static forRoot(config: AppConfig, host: HostComposition): DynamicModule {
    const routes = host.modules.map((module: Type) => ({
      path: extensionManifest(module).namespace,
      module,
    }));
    return {
      module: ApiModule,
      imports: [
        WharfConfigModule.forRoot(config),
        DatabaseModule.forRoot(config.databaseUrl, host.manifests),
        ReadReplicasModule.forRoot(),
        HealthModule,
        MetricsModule,
        TracingModule,
        AccessModule,
        PermissionsModule.forRoot(host.permissions),
        ResourcesModule,
        ...host.modules,
        RouterModule.register(routes),
      ],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
    };
  }
}
