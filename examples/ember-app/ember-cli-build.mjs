import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import EmberApp from 'ember-cli/lib/broccoli/ember-app.js';
import { compatBuild } from '@embroider/compat';

export default async function (defaults) {
  const { setConfig } = await import('@warp-drive/core/build-config');
  const { buildOnce } = await import('@embroider/vite');

  const app = new EmberApp(defaults, {});

  setConfig(app, dirname(fileURLToPath(import.meta.url)), {
    compatWith: '5.8',
    deprecations: {
      // The classic request methods (store.findAll/query/findRecord, record.save/destroyRecord) through
      // adapters and serializers: what Ember Data 5.8 apps use, deprecated since 5.6 in favour of store.request.
      ENABLE_LEGACY_REQUEST_METHODS: true,
    },
  });

  return compatBuild(app, buildOnce);
}
