// Credential redaction for any text that may carry a URL with userinfo (git stderr, error messages, logs).
const URL_USERINFO = /([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^/\s@]*@/g;

/** Replaces `user:secret@` in every URL inside `text` with `***@`. */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, '$1***@');
}

/** Masks the value of a `ticket` query parameter (WebSocket tickets are credentials) in a URL. */
export function redactTicket(url: string): string {
  // Most URLs carry no ticket: one substring search instead of a regular-expression pass over each.
  if (!url.includes('ticket=')) return url;
  return url.replace(/([?&]ticket=)[^&]*/g, '$1***');
}
