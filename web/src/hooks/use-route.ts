// The current client route, following history (links push, back/forward pop). No router library: the GUI
// has a dozen flat routes (lib/routes.ts).
import { useEffect, useState } from 'react';
import { parseRoute, type Route } from '../lib/routes.js';

const CHANGED = 'svc:navigate';

export function navigate(path: string): void {
  if (path === window.location.pathname) return;
  window.history.pushState(null, '', path);
  window.dispatchEvent(new Event(CHANGED));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.pathname));
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGED, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGED, update);
    };
  }, []);
  return route;
}
