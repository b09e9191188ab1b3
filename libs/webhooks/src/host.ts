import { Type } from '@nestjs/common';
import { AccountsExtension } from '@wharf/accounts';
import { AppConfig, HostComposition, composeHost } from '@wharf/core';
import { LocationsExtension } from '@wharf/locations';
import { WebhooksExtension } from './webhooks.extension';

/** The modules every Wharf process is composed of: core, locations, accounts, webhooks, then the extensions. */
export function composeWharf(config: AppConfig, extensions?: Type[]): HostComposition {
  return composeHost(config, [LocationsExtension, AccountsExtension, WebhooksExtension], extensions);
}
