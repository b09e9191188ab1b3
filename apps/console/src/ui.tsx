import { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiFailure } from './api';

export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof ApiFailure ? error.detail : String((error as Error).message ?? error);
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

/** Runs an async action, tracking busy state and the error (shown as the API's detail). */
export function useAction<A extends unknown[]>(run: (...args: A) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const act = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await run(...args);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return { act, busy, error };
}

export function StatusBadge({ status, reason }: { status: string; reason?: string | null }) {
  const label = status === 'disabled' && reason ? 'auto-disabled' : status;
  return (
    <span class={`badge ${status}`} title={reason ?? undefined}>
      {label}
    </span>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => setCopied(true));
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

export function Panel({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="panel" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export const formatTime = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
