// What tells a user someone needs them while they look elsewhere (issue #28): the count in the tab title
// (`(3) svc`), a badge on the favicon, and a browser notification when an agent starts awaiting, at most one
// per workspace a minute, unless this user muted them or the browser refused. Mounted once, in the frame.
import { useEffect, useRef } from 'react';
import { newlyAwaiting } from '../state/attention.js';
import { useNotificationsMuted } from '../state/attention-preferences.js';
import { useLiveFleet } from '../state/live-fleet.js';
import { useViewer } from '../state/session.js';
import { navigate } from './use-route.js';
import { pathOf } from '../lib/routes.js';

const TITLE = 'svc';
const FAVICON = '/ui/favicon.svg';
const FAVICON_BADGE = '/ui/favicon-attention.svg';
/** At most one notification per workspace in this time. */
export const NOTIFY_SPACING_MS = 60_000;

export function useAttentionSignals(count: number): void {
  useEffect(() => {
    document.title = count > 0 ? `(${count}) ${TITLE}` : TITLE;
    const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (icon) icon.href = count > 0 ? FAVICON_BADGE : FAVICON;
  }, [count]);
  useEffect(
    () => () => {
      document.title = TITLE;
    },
    [],
  );

  const { onFrame } = useLiveFleet();
  const { user } = useViewer();
  const { muted } = useNotificationsMuted(user?.username ?? '');
  const lastShown = useRef(new Map<string, number>());
  useEffect(() => {
    if (muted || typeof Notification === 'undefined') return;
    return onFrame((event, before) => {
      if (Notification.permission !== 'granted') return;
      for (const key of newlyAwaiting(before, event)) {
        const now = Date.now();
        if (now - (lastShown.current.get(key) ?? -Infinity) < NOTIFY_SPACING_MS) continue;
        lastShown.current.set(key, now);
        // newlyAwaiting answers only the key of the change itself, never for a sync.
        const description = event.type === 'sync' ? '' : (event.workspace.agent?.description ?? '');
        const notification = new Notification(`${key} is waiting for you`, {
          body: description,
          tag: `svc-awaiting-${key}`,
        });
        notification.onclick = () => {
          window.focus();
          navigate(pathOf({ page: 'inbox' }));
        };
      }
    });
  }, [muted, onFrame]);
}
