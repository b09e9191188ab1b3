import { AsyncLocalStorage } from 'node:async_hooks';

/** Who is calling: set once per request by the auth guard + tenant interceptor, read by the resource layer. */
export interface RequestScope {
  companyUuid: string;
  apiKeyUuid?: string;
}

const storage = new AsyncLocalStorage<RequestScope>();

export const RequestContext = {
  run<T>(scope: RequestScope, fn: () => T): T {
    return storage.run(scope, fn);
  },
  current(): RequestScope | undefined {
    return storage.getStore();
  },
  /** The company every query is scoped to; a missing scope is a programming error, never a client's. */
  companyUuid(): string {
    const scope = storage.getStore();
    if (!scope) throw new Error('No request scope: resource access outside an authenticated request');
    return scope.companyUuid;
  },
};
