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

/** The reason the api records when a person disables an endpoint (webhook-endpoint.hooks.ts); any other is the worker's. */
export const MANUAL_DISABLE_REASON = 'Disabled by a user.';

export function StatusBadge({ status, reason }: { status: string; reason?: string | null }) {
  const automatic = status === 'disabled' && Boolean(reason) && reason !== MANUAL_DISABLE_REASON;
  const label = automatic ? 'auto-disabled' : status;
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

/**
 * A destructive action in two steps: the button asks, and only "Yes, …" acts (or Cancel backs out). Both
 * action buttons look destructive.
 */
export function ConfirmButton({
  label,
  question,
  confirm,
  busy,
  onConfirm,
}: {
  label: string;
  question: string;
  confirm: string;
  busy?: boolean;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)} disabled={busy}>
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={question}>
      <span class="question">{question}</span>{' '}
      <button
        type="button"
        class="danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirm}
      </button>{' '}
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** A secret shown whole on one line (scrolling inside its box, never broken mid-string), with a copy button. */
export function SecretValue({ value, testId }: { value: string; testId: string }) {
  return (
    <p class="secret">
      <code data-testid={testId}>{value}</code>
      <CopyButton text={value} />
    </p>
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
