import 'reflect-metadata';
import { loadConfig, runMain } from '@wharf/core';
import { parseArgs } from './args';
import { migrate } from './migrate.command';
import { start } from './start.command';

const USAGE = `usage: wharf <command>
  start      create + migrate the database, then run api and worker
  migrate    create the database if needed and run pending migrations`;

runMain(async () => {
  const args = parseArgs(process.argv.slice(2));
  const config = loadConfig();
  switch (args.command) {
    case 'start':
      return start(config);
    case 'migrate':
      return migrate(config);
    default:
      process.stderr.write(`${USAGE}\n`);
      process.exitCode = args.command ? 2 : 0;
  }
});
