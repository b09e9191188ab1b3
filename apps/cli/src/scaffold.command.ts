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
import { UsageError } from './accounts.command';
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

function files(
  name: string,
  resource: string,
  table: string,
  migration: { className: string; fileName: string; source: string },
) {
  const Resource = pascal(resource);
  const Ext = `${pascal(name)}Extension`;
  const folder = pluralPath(resource);
  const path = `/${name}/int/v1/${pluralPath(resource)}`;
  const { singular, plural } = rootKeys(resource);
  const variable = camel(resource);
  return {
    [`extensions/${name}/src/index.ts`]: `export * from './${name}.extension';
export * from './${folder}/${resource}.entity';
`,
    [`extensions/${name}/src/${name}.extension.ts`]: `import { Extension } from '${SDK_PACKAGE}';
import { ${Resource}Controller } from './${folder}/${resource}.controller';
import { ${Resource} } from './${folder}/${resource}.entity';
import { ${migration.className} } from './migrations/${migration.fileName.replace(/\.ts$/, '')}';

/** ${pascal(plural.replace(/_/g, '-'))}, served under /${name}/int/v1. */
@Extension({
  name: '${name}',
  entities: [${Resource}],
  migrations: [${migration.className}],
  controllers: [${Resource}Controller],
  events: [],
})
export class ${Ext} {}
`,
    [`extensions/${name}/src/${folder}/${resource}.entity.ts`]: `import { BaseResource, ResourceModel } from '${SDK_PACKAGE}';
import { Column, Entity } from 'typeorm';

/**
 * The one declaration of the resource: its columns are its fields, their types and lengths its validation.
 * After changing it: npm run cli -- migration:generate ${name} <Name>, and list the migration in ${name}.extension.ts.
 */
@Entity('${table}')
@ResourceModel('${resource}', { searchable: ['name'] })
export class ${Resource} extends BaseResource {
  @Column('varchar') name: string;
}
`,
    [`extensions/${name}/src/${folder}/${resource}.controller.ts`]: `import { Resource } from '${SDK_PACKAGE}';
import { ${Resource} } from './${resource}.entity';

@Resource(${Resource})
export class ${Resource}Controller {}
`,
    [`extensions/${name}/src/migrations/${migration.fileName}`]: migration.source,
    [`test/${name}.e2e-spec.ts`]: `import { ${Ext} } from '${EXTENSION_SCOPE}/${name}';
import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

describe('${name}: ${pluralPath(resource)}', () => {
  const path = '${path}';
  let api: TestApi;
  let acme: TestCompany;
  const call = (method: string, url: string, body?: unknown) => http(api.url, method, url, { key: acme.key, body });

  beforeAll(async () => {
    api = await startApi({ extensions: [${Ext}] });
    acme = await createCompany(api);
  });
  afterAll(() => api.close());

  it('serves the five routes', async () => {
    const created = await call('POST', path, { ${singular}: { name: 'First' } });
    expect(created.status).toBe(201);
    const ${variable} = created.body.${singular};
    expect(${variable}).toMatchObject({ name: 'First', company_uuid: acme.uuid });

    expect((await call('GET', path)).body.${plural}).toEqual([${variable}]);
    expect((await call('GET', \`\${path}/\${${variable}.uuid}\`)).body).toEqual({ ${singular}: ${variable} });
    const updated = await call('PUT', \`\${path}/\${${variable}.uuid}\`, { ${singular}: { name: 'Second' } });
    expect(updated.body.${singular}.name).toBe('Second');
    expect((await call('DELETE', \`\${path}/\${${variable}.uuid}\`)).status).toBe(200);
    expect((await call('GET', \`\${path}/\${${variable}.uuid}\`)).status).toBe(404);
  });

  it('refuses invalid input with 422', async () => {
    const res = await call('POST', path, { ${singular}: {} });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe('/data/attributes/name');
  });
});
`,
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
  for (const [file, source] of Object.entries(files(name, resource, table, migration))) {
    const target = join(root, file);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, await formatSource(target, source));
    process.stdout.write(`created ${relative(process.cwd(), target)}\n`);
  }
  process.stdout.write(
    `Extension "${name}" serves /${name}/int/v1/${pluralPath(resource)}: npm start (or npx jest test/${name}.e2e-spec.ts).\n`,
  );
}
