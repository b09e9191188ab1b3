import { OPENTELEMETRY_API, deferModules } from '@wharf/core/host/deferred-modules.loader';

// main.ts imports this first: it must run before anything requires prom-client.
deferModules([OPENTELEMETRY_API]);
