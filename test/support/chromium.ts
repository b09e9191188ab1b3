import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Debian's Chromium, driven by playwright-core (which brings no browser of its own). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where browser tests leave their screenshots (git-ignored). */
export const ARTIFACTS = join(__dirname, '..', 'artifacts');

/**
 * `describe` where Chromium is installed, else `describe.skip` with one line saying so. CI installs it
 * (.ci/run) and never skips.
 */
export function chromiumSuite(what: string): jest.Describe {
  const available = existsSync(CHROMIUM);
  if (!available && !process.env.CI) {
    process.stdout.write(`${what} skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)\n`);
  }
  return available || process.env.CI ? describe : describe.skip;
}
