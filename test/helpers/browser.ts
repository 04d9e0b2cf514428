// Debian's Chromium driven by playwright-core, for the GUI tests (test/web). The launch (headless, the flags a
// closed network needs, a fresh profile per launch) lives in bench/lib/chromium.ts, shared with the GUI
// benchmark. Missing Chromium: skipped with a hint outside CI, a failure under CI=true (.ci/run installs
// it), as for the other pinned tools (external-tools.ts).
import type { Page } from 'playwright-core';
import { CHROMIUM } from '../../bench/lib/chromium.js';
import { toolAvailable } from './external-tools.js';

export { CHROMIUM, CHROMIUM_FLAGS, launchChromium } from '../../bench/lib/chromium.js';

export function chromiumAvailable(who: string): boolean {
  return toolAvailable(CHROMIUM, who, 'install it with `apt-get install -y chromium` (or set SVC_CHROMIUM)');
}

/** What a page did that a test asserts never happens: dialogs (alert/confirm/prompt), CSP violations, page errors. */
export interface PageWatch {
  dialogs: string[];
  pageErrors: string[];
  /** `securitypolicyviolation` events seen in the page, as `directive blocked-uri`. */
  cspViolations(): Promise<string[]>;
  /** Requests the page sent to any origin other than its own. */
  foreignRequests: string[];
}

export async function watchPage(page: Page, origin: string): Promise<PageWatch> {
  const watch: Omit<PageWatch, 'cspViolations'> = { dialogs: [], pageErrors: [], foreignRequests: [] };
  page.on('dialog', (dialog) => {
    watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss().catch(() => undefined);
  });
  page.on('pageerror', (error) => watch.pageErrors.push(error.message));
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith(origin.replace(/^http/, 'ws'))) watch.foreignRequests.push(url);
  });
  // Installed through the DevTools protocol before any page script: not subject to the page's CSP.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return {
    ...watch,
    cspViolations: () =>
      page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []),
  };
}
