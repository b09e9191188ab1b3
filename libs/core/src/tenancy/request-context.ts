import { AsyncLocalStorage } from 'node:async_hooks';
import { READ_ONLY_METHODS } from '../common/read-only-methods';

/** What a caller may do (see PermissionGrants): `all` when it holds every permission. */
export interface PermissionCheck {
  /** As held: permission names and wildcards. */
  readonly patterns: readonly string[];
  readonly all: boolean;
  has(permission: string): boolean;
}

/** Who is calling: set once per request by the auth guard, read by the resource layer. */
export interface RequestScope {
  companyUuid: string;
  /** The caller's permissions; absent outside a request (a CLI, the worker), which are not checked. */
  grants?: PermissionCheck;
  apiKeyUuid?: string;
  /** The key is a platform key (may open any company's portal). */
  platform?: boolean;
  /** Set when the caller is a portal session (its cookie) rather than an API key. */
  portal?: { sessionUuid: string; readOnly: boolean; expiresAt: number };
}

/** One per request, opened before any handler runs and filled in once the caller is authenticated. */
interface ScopeHolder {
  scope?: RequestScope;
  /** The connection every statement of the request runs on, when one is pinned (see pinned-connection.ts). */
  connection?: object;
  /** A GET or HEAD: its reads may be served by a replica (database/read-replicas.ts). */
  readsOnly?: boolean;
  /** Work for once a successful response is sent: by then whatever the request wrote has committed. */
  afterResponse?: (() => void)[];
}

/** Where onRequest leaves a request's holder, for its onResponse hook (which runs outside its async context). */
const HOLDER = Symbol('wharf:request-scope');

const storage = new AsyncLocalStorage<ScopeHolder>();

export const RequestContext = {
  run<T>(scope: RequestScope, fn: () => T): T {
    return storage.run({ scope }, fn);
  },
  /**
   * Opens the request's (still empty) scope around the rest of its handling: the HTTP layer's first hook
   * calls it, so guards, pipes, handlers and everything they await share one holder. Authenticating in a
   * guard then only fills it in; wrapping each handler instead (a Nest interceptor) cost every request an
   * rxjs chain, about a tenth of the api's allocations on GET one.
   */
  open(next: () => void, request?: object): void {
    const method = (request as { method?: string } | undefined)?.method;
    const holder: ScopeHolder = { readsOnly: method !== undefined && READ_ONLY_METHODS.has(method) };
    if (request) (request as Record<symbol, ScopeHolder>)[HOLDER] = holder;
    storage.run(holder, next);
  },
  /**
   * Runs `work` once the response of the authenticated request being handled has been sent, if it succeeded
   * (so after its writes committed, in a transaction of its own or not; a failed request's writes rolled
   * back); false when there is no such request (a CLI, the worker): the caller then does the work itself.
   */
  afterResponse(work: () => void): boolean {
    const holder = storage.getStore();
    if (!holder?.scope) return false;
    (holder.afterResponse ??= []).push(work);
    return true;
  },
  /** The request's after-response work (its onResponse hook calls it with the status sent). */
  responded(request: object, status: number): void {
    const work = (request as Record<symbol, ScopeHolder | undefined>)[HOLDER]?.afterResponse;
    if (work && status < 400) for (const run of work) run();
  },
  /** Sets the scope of the request being handled (the auth guard, after authenticating its caller). */
  enter(scope: RequestScope): void {
    const holder = storage.getStore();
    if (!holder) throw new Error('No request scope opened: RequestContext.open must wrap the request');
    holder.scope = scope;
  },
  /** Pins (or, with undefined, unpins) the connection every statement of this request runs on. */
  pinConnection(connection: object | undefined): void {
    const holder = storage.getStore();
    if (!holder) throw new Error('No request scope opened: RequestContext.open must wrap the request');
    holder.connection = connection;
  },
  /** Whether the request being handled only reads (GET, HEAD): false outside a request. */
  readsOnly(): boolean {
    return storage.getStore()?.readsOnly === true;
  },
  pinnedConnection(): object | undefined {
    return storage.getStore()?.connection;
  },
  current(): RequestScope | undefined {
    return storage.getStore()?.scope;
  },
  /** The company every query is scoped to; a missing scope is a programming error, never a client's. */
  companyUuid(): string {
    const scope = storage.getStore()?.scope;
    if (!scope) throw new Error('No request scope: resource access outside an authenticated request');
    return scope.companyUuid;
  },
};
