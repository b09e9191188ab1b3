import { Type } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { ExtensionManifest, extensionManifest } from '../extensions/extension.decorator';
import { checkExtensions } from '../extensions/extension-checks';
import { assertNoConflicts, loadExtensions } from '../extensions/extension-loader';
import { CoreExtension } from './core.extension';

/** Everything a process of the host is made of: built-in modules first, then the loaded extensions. */
export interface HostComposition {
  modules: Type[];
  manifests: ExtensionManifest[];
}

/**
 * @param builtIns modules of the libraries (e.g. webhooks) declared with @Extension
 * @param extensions explicit extension modules (tests); default: those named by EXTENSIONS
 */
export function composeHost(config: AppConfig, builtIns: Type[] = [], extensions?: Type[]): HostComposition {
  const modules = [CoreExtension, ...builtIns, ...(extensions ?? loadExtensions(config.extensions))];
  assertNoConflicts(modules);
  checkExtensions(modules);
  return { modules, manifests: modules.map((module) => extensionManifest(module)) };
}
