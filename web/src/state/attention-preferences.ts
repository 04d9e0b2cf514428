// What one user chose about the inbox, kept in this browser's local storage under their name: the entries
// they dismissed (a finished turn, an ended session: by workspace, the time of the occurrence they saw) and
// whether browser notifications are muted. A small external store: every component reading it re-renders
// when it changes (React's useSyncExternalStore), across tabs too (the `storage` event).
import { useCallback, useSyncExternalStore } from 'react';
import type { Dismissals } from './attention.js';

const listeners = new Set<() => void>();
const notify = () => {
  for (const listener of listeners) listener();
};
function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('storage', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', listener);
  };
}

const dismissalsKey = (user: string) => `svc.inbox.dismissed.${user}`;
const mutedKey = (user: string) => `svc.inbox.muted.${user}`;
/** Dismissals kept per user: older ones are dropped first. */
const MAX_DISMISSALS = 500;

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}
function write(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Storage refused (private mode, quota): the choice lasts until the page is closed.
  }
  notify();
}

const parsed = new Map<string, { text: string | null; value: Dismissals }>();
function dismissalsOf(user: string): Dismissals {
  const key = dismissalsKey(user);
  const text = read(key);
  const cached = parsed.get(key);
  if (cached && cached.text === text) return cached.value;
  let value: Dismissals = new Map();
  try {
    const entries: unknown = text ? JSON.parse(text) : [];
    if (Array.isArray(entries))
      value = new Map(
        entries.filter(
          (entry): entry is [string, string] =>
            Array.isArray(entry) && entry.length === 2 && entry.every((part) => typeof part === 'string'),
        ),
      );
  } catch {
    // A damaged value: nothing dismissed.
  }
  parsed.set(key, { text, value });
  return value;
}

export function useDismissals(user: string): { dismissals: Dismissals; dismiss(key: string, since: string): void } {
  const dismissals = useSyncExternalStore(subscribe, () => dismissalsOf(user));
  const dismiss = useCallback(
    (key: string, since: string) => {
      const next = new Map(dismissalsOf(user));
      next.delete(key);
      next.set(key, since);
      write(dismissalsKey(user), JSON.stringify([...next].slice(-MAX_DISMISSALS)));
    },
    [user],
  );
  return { dismissals, dismiss };
}

export function useNotificationsMuted(user: string): { muted: boolean; setMuted(muted: boolean): void } {
  const muted = useSyncExternalStore(subscribe, () => read(mutedKey(user)) === '1');
  const setMuted = useCallback((value: boolean) => write(mutedKey(user), value ? '1' : null), [user]);
  return { muted, setMuted };
}
