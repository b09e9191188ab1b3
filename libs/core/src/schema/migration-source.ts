import { SDK_PACKAGE } from '../extensions/shared-modules';

export interface GeneratedMigration {
  className: string;
  fileName: string;
  source: string;
}

/** The TypeScript source of a migration class `<name><timestamp>` running `up` and `down` (statements of its body). */
export function migrationSource(
  name: string,
  timestamp: number,
  { up, down, usesCreateResourceTable }: { up: string[]; down: string[]; usesCreateResourceTable: boolean },
): GeneratedMigration {
  const className = `${name}${timestamp}`;
  const kebab = name.replace(/([a-z\d])([A-Z])/g, '$1-$2').toLowerCase();
  const imports = [
    ...(usesCreateResourceTable ? [`import { createResourceTable } from '${SDK_PACKAGE}';`] : []),
    `import { MigrationInterface, QueryRunner } from 'typeorm';`,
  ];
  const body = (lines: string[]) => lines.map((line) => `    ${line}`).join('\n');
  const source = `${imports.join('\n')}

export class ${className} implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
${body(up)}
  }

  async down(queryRunner: QueryRunner): Promise<void> {
${body(down)}
  }
}
`;
  return { className, fileName: `${timestamp}-${kebab}.ts`, source };
}
