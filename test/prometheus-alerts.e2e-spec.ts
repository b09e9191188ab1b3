import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const DIR = join(__dirname, '..', 'deploy', 'prometheus');
const promtool = spawnSync('promtool', ['--version']).status === 0;
// Where promtool is installed (Debian: apt-get install prometheus) the rules are checked and tested; in CI
// (CI set) its absence fails rather than skips.
const run = promtool || process.env.CI ? it : it.skip;

describe('deploy/prometheus/alerts.yml', () => {
  run('passes promtool check rules', () => {
    expect(execFileSync('promtool', ['check', 'rules', 'alerts.yml'], { cwd: DIR }).toString()).toMatch(
      /SUCCESS: 4 rules found/,
    );
  });

  run('passes promtool test rules (alerts.test.yml)', () => {
    expect(execFileSync('promtool', ['test', 'rules', 'alerts.test.yml'], { cwd: DIR }).toString()).toMatch(
      /SUCCESS/,
    );
  });
});
