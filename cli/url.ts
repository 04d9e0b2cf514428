// Normalizes the URL forms the CLI accepts: `4700`, `localhost:4700`, or a full http(s) URL.
export function normalizeUrl(input: string): string {
  const value = input.trim();
  if (/^\d+$/.test(value)) return `http://localhost:${value}`;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  const url = new URL(withScheme);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`not an http(s) URL: ${input}`);
  return url.toString().replace(/\/$/, '');
}
