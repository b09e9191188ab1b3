import type { KernelConfig } from './app-config';
import { ConfigError, loadConfig } from './config';
import { ConfigSection, registerConfigSection } from './config-sections';
import { Env, integer } from './env-readers';

// A section under a key the kernel does not know (libraries declare theirs by module augmentation).
const section = (key: string, read: (env: Env, kernel: KernelConfig) => unknown) =>
  ({ key, read }) as unknown as ConfigSection;

describe('configuration sections of libraries', () => {
  it('reads a registered section after the kernel, from the same environment and with its settings', () => {
    registerConfigSection(
      section('probe', (env, kernel) => ({ limit: integer(env, 'PROBE_LIMIT', 3, 1, 9), port: kernel.port })),
    );
    expect(loadConfig({ PROBE_LIMIT: '7', PORT: '8080' })).toMatchObject({
      port: 8080,
      probe: { limit: 7, port: 8080 },
    });
    expect(loadConfig({})).toMatchObject({ probe: { limit: 3, port: 3000 } });
  });

  it('a bad variable of a section is one ConfigError line naming it', () => {
    registerConfigSection(section('probe', (env) => integer(env, 'PROBE_LIMIT', 3, 1, 9)));
    let error: unknown;
    try {
      loadConfig({ PROBE_LIMIT: 'ten' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('PROBE_LIMIT');
    expect((error as Error).message).toBe(
      'Invalid configuration: PROBE_LIMIT must be a whole number from 1 to 9, got "ten"',
    );
  });

  it('refuses a section that would replace a kernel setting', () => {
    registerConfigSection(section('port', () => 1));
    expect(() => loadConfig({})).toThrow(/section "port" is a kernel setting/);
  });
});
