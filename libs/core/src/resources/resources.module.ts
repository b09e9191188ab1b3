import { Global, Module } from '@nestjs/common';
import { ResourceRegistry } from './resource-registry';
import { ResourceServices } from './resource-services';

@Global()
@Module({ providers: [ResourceRegistry, ResourceServices], exports: [ResourceRegistry, ResourceServices] })
export class ResourcesModule {}
