import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { session } from './api';
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

function App() {
  const [signedIn, setSignedIn] = useState(Boolean(session.key()));
  const hash = useHash();
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  const endpoint = /^#\/webhooks\/([0-9a-f-]{36})/.exec(hash)?.[1];
  return (
    <>
      <header class="topbar">
        <strong>Wharf</strong>
        <nav aria-label="Sections">
          <span class="section">Developers</span> › <a href="#/webhooks">Webhooks</a>
        </nav>
        <button
          type="button"
          class="link"
          onClick={() => {
            session.signOut();
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main>{endpoint ? <EndpointPage uuid={endpoint} /> : <EndpointListPage />}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
