import { useState } from 'preact/hooks';
import { ApiFailure, api, session } from './api';
import { ErrorMessage, useAction } from './ui';

export function SignIn({ onSignedIn, notice }: { onSignedIn: () => void; notice?: string }) {
  const [key, setKey] = useState('');
  const { act, busy, error } = useAction(async () => {
    session.signIn(key);
    try {
      await api('GET', '/webhook-endpoints?limit=1');
      onSignedIn();
    } catch (caught) {
      session.signOut();
      if (caught instanceof ApiFailure && caught.status === 401) {
        throw new ApiFailure(
          401,
          'That API key was not accepted. Check that you pasted the whole key and that it has not been revoked.',
        );
      }
      throw caught;
    }
  });
  return (
    <main class="signin">
      <h1>Wharf console</h1>
      {notice && (
        <p class="banner" role="status" data-testid="signed-out-notice">
          {notice}
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void act();
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          required
          placeholder="wharf_live_…"
        />
        <button type="submit" disabled={busy || !key.trim()}>
          Sign in
        </button>
        <ErrorMessage error={error} />
      </form>
      <p class="hint">The key is kept for this browser tab only.</p>
    </main>
  );
}
