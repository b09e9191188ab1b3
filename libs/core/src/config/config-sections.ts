import type { AppConfig, KernelConfig } from './app-config';
import type { Env } from './env-readers';

/**
 * A library's part of the configuration, under its own key of AppConfig. loadConfig reads it after the
 * kernel's settings (which it is given), so a bad variable of a section fails the boot as one ConfigError
 * line naming it, like any other; a process that never loads the library has no such field.
 */
export interface ConfigSection<K extends keyof AppConfig = keyof AppConfig> {
  key: K;
  /** Reads the section's variables with configReaders, which throw a ConfigError naming the bad one. */
  read(env: Env, kernel: Readonly<KernelConfig>): AppConfig[K];
}

const sections = new Map<keyof AppConfig, ConfigSection>();

/** Adds `section` to every configuration loaded from now on; registering its key again replaces it. */
export function registerConfigSection<K extends keyof AppConfig>(section: ConfigSection<K>): void {
  sections.set(section.key, section);
}

/** Every registered section, read from `env`, by key. */
export function readConfigSections(env: Env, kernel: Readonly<KernelConfig>): Partial<AppConfig> {
  const read: Partial<Record<keyof AppConfig, unknown>> = {};
  for (const [key, section] of sections) {
    if (Object.hasOwn(kernel, key)) throw new Error(`The configuration section "${key}" is a kernel setting`);
    read[key] = section.read(env, kernel);
  }
  return read as Partial<AppConfig>;
}
