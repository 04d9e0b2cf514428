// Which URLs the GUI renders as links (docs/security.md H21): only http and https. A `javascript:`, `data:`
// or unparseable pull-request or agent link is shown as plain text, never as an href.

const ALLOWED = new Set(['http:', 'https:']);

/** The URL to put in an href, or null when it must stay text. */
export function safeHref(url: string | null | undefined): string | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return ALLOWED.has(parsed.protocol) ? parsed.href : null;
}
