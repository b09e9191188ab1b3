import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Type } from '@nestjs/common';
import {
  AppConfig,
  BaseResource,
  Extension,
  RESOURCE_NAME,
  ResourceModel,
  generateMigration,
  loadExtensions,
  pluralPath,
  resourceNameProblem,
  SDK_PACKAGE,
  rootKeys,
} from '@wharf/core';
import { composeWharf } from '@wharf/webhooks';
import { Column, Entity } from 'typeorm';
import { ParsedArgs } from './args';
import { formatSource } from './format-source';
import { UsageError } from './args';
import { withMigratedScratch } from './migration.command';

/** Written into generated sources; kept out of import-like text so the build's alias rewriting leaves it. */
const EXTENSION_SCOPE = '@wharf';

const pascal = (name: string) =>
  name
    .split('-')
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');

const camel = (name: string) => pascal(name)[0].toLowerCase() + pascal(name).slice(1);

/**
 * The entity the scaffold writes, defined here as well so that its migration is generated from it by the
 * same code as `migration:generate` (the files are TypeScript the running CLI cannot load).
 */
function scaffoldExtension(name: string, resource: string, table: string): Type {
  const entity = { [pascal(resource)]: class extends BaseResource {} }[pascal(resource)];
  Column('varchar')(entity.prototype, 'name');
  Entity(table)(entity);
  ResourceModel(resource, { searchable: ['name'] })(entity);
  const extension = class {};
  Extension({ name, entities: [entity] })(extension);
  return extension;
}

type GeneratedMigration = { className: string; fileName: string; source: string };

/** The names one resource of the scaffold is written with. */
interface Names {
  name: string;
  resource: string;
  table: string;
  Resource: string;
  Ext: string;
  folder: string;
  path: string;
  singular: string;
  plural: string;
  variable: string;
}

function namesOf(name: string, resource: string, table: string): Names {
  const { singular, plural } = rootKeys(resource);
  return {
    name,
    resource,
    table,
    Resource: pascal(resource),
    Ext: `${pascal(name)}Extension`,
    folder: pluralPath(resource),
    path: `/${name}/int/v1/${pluralPath(resource)}`,
    singular,
    plural,
    variable: camel(resource),
  };
}

function extensionModule(n: Names, migration: GeneratedMigration): string {
  return `import { Extension } from '${SDK_PACKAGE}';
import { ${n.Resource}Controller } from './${n.folder}/${n.resource}.controller';
import { ${n.Resource} } from './${n.folder}/${n.resource}.entity';
import { ${migration.className} } from './migrations/${migration.fileName.replace(/\.ts$/, '')}';

/** ${pascal(n.plural.replace(/_/g, '-'))}, served under /${n.name}/int/v1. */
@Extension({
  name: '${n.name}',
  entities: [${n.Resource}],
  migrations: [${migration.className}],
  controllers: [${n.Resource}Controller],
  events: [],
})
export class ${n.Ext} {}
`;
}

function entitySource(n: Names): string {
  return `import { BaseResource, ResourceModel } from '${SDK_PACKAGE}';
import { Column, Entity } from 'typeorm';

/**
 * The one declaration of the resource: its columns are its fields, their types and lengths its validation.
 * After changing it: npm run cli -- migration:generate ${n.name} <Name>, and list the migration in ${n.name}.extension.ts.
 * A new required column (NOT NULL, no default) must be sent by the create of test/${n.name}.e2e-spec.ts too.
 */
@Entity('${n.table}')
@ResourceModel('${n.resource}', { searchable: ['name'] })
export class ${n.Resource} extends BaseResource {
  @Column('varchar') name: string;
}
`;
}

/** The e2e test: every call states the status it expects and, when another comes, fails showing the body. */
function testSource(n: Names): string {
  const one = `\`\${path}/\${${n.variable}.uuid}\``;
  return `import { ${n.Ext} } from '${EXTENSION_SCOPE}/${n.name}';
import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

describe('${n.name}: ${n.folder}', () => {
  const path = '${n.path}';
  let api: TestApi;
  let acme: TestCompany;
  /** The response, or a failure showing its body (a 422 names each field) when the status is not \`status\`. */
  const call = async (method: string, url: string, status: number, body?: unknown) => {
    const res = await http(api.url, method, url, { key: acme.key, body });
    if (res.status !== status) {
      throw new Error(\`\${method} \${url}: expected \${status}, got \${res.status} \${JSON.stringify(res.body, null, 2)}\`);
    }
    return res;
  };

  beforeAll(async () => {
    api = await startApi({ extensions: [${n.Ext}] });
    acme = await createCompany(api);
  });
  afterAll(() => api.close());

  it('serves the five routes', async () => {
    const ${n.variable} = (await call('POST', path, 201, { ${n.singular}: { name: 'First' } })).body.${n.singular};
    expect(${n.variable}).toMatchObject({ name: 'First', company_uuid: acme.uuid });

    expect((await call('GET', path, 200)).body.${n.plural}).toEqual([${n.variable}]);
    expect((await call('GET', ${one}, 200)).body).toEqual({ ${n.singular}: ${n.variable} });
    const updated = await call('PUT', ${one}, 200, { ${n.singular}: { name: 'Second' } });
    expect(updated.body.${n.singular}.name).toBe('Second');
    await call('DELETE', ${one}, 200);
    await call('GET', ${one}, 404);
  });

  it('refuses invalid input with 422', async () => {
    const res = await call('POST', path, 422, { ${n.singular}: {} });
    expect(res.body.errors[0].source.pointer).toBe('/data/attributes/name');
  });
});
`;
}

function files(n: Names, migration: GeneratedMigration): Record<string, string> {
  const src = `extensions/${n.name}/src`;
  return {
    [`${src}/index.ts`]: `export * from './${n.name}.extension';
export * from './${n.folder}/${n.resource}.entity';
`,
    [`${src}/${n.name}.extension.ts`]: extensionModule(n, migration),
    [`${src}/${n.folder}/${n.resource}.entity.ts`]: entitySource(n),
    [`${src}/${n.folder}/${n.resource}.controller.ts`]: `import { Resource } from '${SDK_PACKAGE}';
import { ${n.Resource} } from './${n.resource}.entity';

@Resource(${n.Resource})
export class ${n.Resource}Controller {}
`,
    [`${src}/migrations/${migration.fileName}`]: migration.source,
    [`test/${n.name}.e2e-spec.ts`]: testSource(n),
  };
}

/** `extension:new <name> --resource <singular> [--root DIR]`: a working extension with one resource. */
export async function newExtension(config: AppConfig, args: ParsedArgs): Promise<void> {
  const [name] = args.positional;
  const resource = args.options.resource;
  if (!name || typeof resource !== 'string') {
    throw new UsageError(
      'usage: extension:new <name> --resource <singular> (e.g. extension:new depot --resource parking-bay)',
    );
  }
  if (!RESOURCE_NAME.test(name))
    throw new UsageError(`"${name}" is not an extension name: use lower-case words joined by dashes`);
  const problem = resourceNameProblem(resource);
  if (problem) throw new UsageError(problem);
  const root = typeof args.options.root === 'string' ? args.options.root : process.cwd();
  if (existsSync(join(root, 'extensions', name))) throw new UsageError(`extensions/${name} already exists`);

  const table = rootKeys(resource).plural;
  const extension = scaffoldExtension(name, resource, table);
  const manifests = composeWharf(config, [...loadExtensions(config.extensions), extension]).manifests;
  const migration = await withMigratedScratch(config, manifests, (dataSource) =>
    generateMigration(dataSource, manifests, name, `Create${pascal(pluralPath(resource))}`),
  );
  if (!migration) throw new Error(`table "${table}" already exists`);
  for (const [file, source] of Object.entries(files(namesOf(name, resource, table), migration))) {
    const target = join(root, file);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, await formatSource(target, source));
    process.stdout.write(`created ${relative(process.cwd(), target)}\n`);
  }
  process.stdout.write(
    `Extension "${name}" serves /${name}/int/v1/${pluralPath(resource)}: npm start (or npx jest test/${name}.e2e-spec.ts).\n`,
  );
}
