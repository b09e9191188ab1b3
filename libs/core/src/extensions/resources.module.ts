import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ResourceRegistry } from '../resources/resource-registry';
import { ResourceServices } from './resource-services';

@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [ResourceRegistry, ResourceServices],
  exports: [ResourceRegistry, ResourceServices],
})
export class ResourcesModule {}
