// A page's one <h1> (issue #31: every page has exactly one). Focusable by script only (tabIndex -1), so
// focus can land on it when the control that held it is gone (lib/focus.ts).
import type { ReactNode } from 'react';

export function PageTitle({ children }: { children: ReactNode }) {
  return <h1 tabIndex={-1}>{children}</h1>;
}
