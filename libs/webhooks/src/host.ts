import { Type } from '@nestjs/common';
import { AppConfig, HostComposition, composeHost } from '@wharf/core';
import { WebhooksExtension } from './webhooks.extension';

/** The modules every Wharf process is composed of: core, webhooks, then the loaded extensions. */
export function composeWharf(config: AppConfig, extensions?: Type[]): HostComposition {
  return composeHost(config, [WebhooksExtension], extensions);
}
