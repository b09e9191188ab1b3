import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, SessionInfo, api, onSignedOut, session } from './api';
import { ApiKeysPage } from './api-keys.page';
import { EventCatalogPage } from './event-catalog.page';
import { startLive, stopLive } from './live';
import { applyTheme, reportToParent } from './embedding';
import { SignIn } from './sign-in';
import { EndpointPage } from './webhooks/endpoint.page';
import { EndpointListPage } from './webhooks/endpoint-list.page';
import './styles.css';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return hash;
}

/**
 * The token of a portal link (`#portal_token=…`: in the fragment, which the browser never sends to a
 * server), taken off the address bar and the history at once, before any other code can read it.
 */
function takePortalToken(): string | null {
  const match = /^#portal_token=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!match) return null;
  history.replaceState(null, '', `${location.pathname}${location.search}#/webhooks`);
  return match[1];
}

let linkToken = takePortalToken();

const ENDED =
  'This portal session has ended (it expired or was revoked). Open the portal again from the app.';

type Phase = { phase: 'loading' } | { phase: 'signed-out'; notice?: string } | { phase: 'signed-in' };

/** Trades a portal link's token for the session cookie (then forgets it), and reads who the session is. */
async function boot(): Promise<Phase> {
  const token = linkToken;
  linkToken = null;
  if (token) {
    try {
      await api('POST', '/portal-sessions/exchange', { token });
    } catch (caught) {
      // A reload of the frame shows the used link again: the session its cookie holds may still be valid.
      try {
        session.signInPortal();
        session.setInfo((await api<{ session: SessionInfo }>('GET', '/session')).session);
        return { phase: 'signed-in' };
      } catch {
        session.signOut();
        return { phase: 'signed-out', notice: caught instanceof ApiFailure ? caught.detail : ENDED };
      }
    }
    session.signInPortal();
  }
  if (!session.signedIn()) return { phase: 'signed-out' };
  try {
    session.setInfo((await api<{ session: SessionInfo }>('GET', '/session')).session);
    return { phase: 'signed-in' };
  } catch (caught) {
    const portal = session.portal();
    session.signOut();
    return { phase: 'signed-out', notice: portal ? ENDED : (caught as Error).message };
  }
}

function App() {
  const [state, setState] = useState<Phase>({ phase: 'loading' });
  const hash = useHash();
  useEffect(() => {
    void boot().then(setState);
    return onSignedOut(() => {
      stopLive();
      session.signOut();
      setState({ phase: 'signed-out', notice: ENDED });
    });
  }, []);
  useEffect(() => {
    // The live log is the request log's: only for a session that may read it.
    if (state.phase === 'signed-in' && session.can('webhooks.logs:read')) startLive();
    else stopLive();
  }, [state.phase]);

  if (state.phase === 'loading') return <p class="loading">Loading…</p>;
  if (state.phase === 'signed-out')
    return <SignIn notice={state.notice} onSignedIn={() => void boot().then(setState)} />;
  const info = session.info();
  const portal = info?.kind === 'portal';
  const endpoint = /^#\/webhooks\/([0-9a-f-]{36})/.exec(hash)?.[1];
  const page =
    hash.startsWith('#/events') && session.has('catalog')
      ? 'events'
      : hash.startsWith('#/api-keys') && !portal && session.can('api_keys:read')
        ? 'keys'
        : 'webhooks';
  return (
    <>
      <header class="topbar">
        <strong>{info?.company.name || 'Wharf'}</strong>
        <nav aria-label="Sections">
          <span class="section">Developers</span> ›{' '}
          <a href="#/webhooks" aria-current={page === 'webhooks' ? 'page' : undefined}>
            Webhooks
          </a>
          {session.has('catalog') && (
            <>
              {' · '}
              <a href="#/events" aria-current={page === 'events' ? 'page' : undefined}>
                Event catalog
              </a>
            </>
          )}
          {!portal && session.can('api_keys:read') && (
            <>
              {' · '}
              <a href="#/api-keys" aria-current={page === 'keys' ? 'page' : undefined}>
                API keys
              </a>
            </>
          )}
        </nav>
        {info?.read_only && <span class="badge readonly">read-only</span>}
        {portal ? (
          info?.return_url && (
            <a class="link" href={info.return_url} target="_top">
              ← Back
            </a>
          )
        ) : (
          <button
            type="button"
            class="link"
            onClick={() => {
              stopLive();
              session.signOut();
              setState({ phase: 'signed-out' });
            }}
          >
            Sign out
          </button>
        )}
      </header>
      <main>
        {endpoint ? (
          <EndpointPage uuid={endpoint} />
        ) : page === 'events' ? (
          <EventCatalogPage />
        ) : page === 'keys' ? (
          <ApiKeysPage />
        ) : (
          <EndpointListPage />
        )}
      </main>
    </>
  );
}

applyTheme();
reportToParent();
render(<App />, document.getElementById('app')!);
