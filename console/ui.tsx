// Small pieces every page uses: the error box (the API's message and requestId), async data,
// labelled fields, dates.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from '../client/index.js';

/** Every failure shows the API's message, its corrections and the requestId to give support. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiError) {
    return (
      <div class="error" role="alert" data-testid="error">
        <strong>{error.body.message}</strong> <span class="muted">(HTTP {error.status})</span>
        <ul>
          {error.body.errors.map((e, i) => (
            <li key={i}>
              {e.message}
              {e.correctionSuggestion ? <span class="muted"> — {e.correctionSuggestion}</span> : null}
            </li>
          ))}
        </ul>
        {error.body.roles.length || error.body.scopes.length ? <p class="muted">Missing: {[...error.body.roles, ...error.body.scopes].join(', ')}</p> : null}
        <p>
          requestId: <code data-testid="error-request-id">{error.requestId || 'none'}</code>
          {error.requestId ? <> · <a href={`#/events?requestId=${encodeURIComponent(error.requestId)}`}>events of this request</a></> : null}
        </p>
      </div>
    );
  }
  return (
    <div class="error" role="alert" data-testid="error">
      <strong>{error instanceof Error ? error.message : String(error)}</strong>
      <p class="muted">The server could not be reached, or the console failed: no requestId.</p>
    </div>
  );
}

/** Loads data with `load` whenever `deps` change; `reload` loads again. */
export function useData<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

/** Runs an action (a write), keeping its error for an ErrorBox and a busy flag for the button. */
export function useAction() {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { error, busy, run, setError };
}

export function Field(props: { label: string; name: string; value: string; onInput: (v: string) => void; type?: 'text' | 'email' | 'password'; required?: boolean; placeholder?: string }) {
  return (
    <label>
      {props.label}
      <input name={props.name} type={(props.type ?? 'text') as 'text'} value={props.value} required={props.required} placeholder={props.placeholder} onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)} />
    </label>
  );
}

export function Select(props: { label: string; name: string; value: string; options: (string | [string, string])[]; onChange: (v: string) => void }) {
  return (
    <label>
      {props.label}
      <select name={props.name} value={props.value} onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value)}>
        {props.options.map((o) => {
          const [value, text] = typeof o === 'string' ? [o, o] : o;
          return (
            <option key={value} value={value}>
              {text}
            </option>
          );
        })}
      </select>
    </label>
  );
}

export const when = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + 'Z' : '—');

export const show = (value: unknown): string => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));

export function Loading({ what }: { what: string }) {
  return <p aria-busy="true">Loading {what}…</p>;
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}
