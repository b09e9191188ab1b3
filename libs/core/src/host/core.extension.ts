import { Extension } from '../extensions/extension.decorator';

/** The core's own resources, declared like any extension but mounted at `/int/v1`. */
@Extension({
  name: 'core',
  namespace: 'int/v1',
  entities: [],
  migrations: [],
})
export class CoreExtension {}
