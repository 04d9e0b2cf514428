// A link between GUI pages: a real href (open in a new tab works), navigated in place on a plain click.
import type { MouseEvent, ReactNode } from 'react';
import { navigate } from '../hooks/use-route.js';
import { pathOf, type Route } from '../lib/routes.js';

/** `label`: an accessible name that adds to the visible text ("Terminal demo/x" for "Terminal"). */
export function Link({
  to,
  children,
  className,
  label,
}: {
  to: Route;
  children: ReactNode;
  className?: string;
  label?: string;
}) {
  const href = pathOf(to);
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} className={className} aria-label={label}>
      {children}
    </a>
  );
}
