import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { AppConfig } from './config';

export const APP_CONFIG = Symbol('APP_CONFIG');

/** Makes the already-validated configuration injectable (as APP_CONFIG, and through ConfigService). */
@Global()
@Module({})
export class WharfConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WharfConfigModule,
      imports: [ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ app: config })] })],
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG, ConfigModule],
    };
  }
}
