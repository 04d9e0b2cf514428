// The warning a bridge without authentication prints on stderr at start and then periodically for as long
// as it runs (spec "Disabled authentication"), so it cannot scroll out of sight in a long-lived log.
const DEFAULT_INTERVAL_MS = 10 * 60_000;

export function bannerText(url: string): string {
  const line = '!'.repeat(78);
  return `${line}\n!! AUTHENTICATION IS DISABLED (--insecure-no-auth): every request to ${url} is an admin.\n!! Anyone who can reach this port controls every registered ship (shell access). Local testing only.\n${line}\n`;
}

/** Prints the banner now and every `intervalMs`; returns the function that stops it. */
export function startInsecureBanner(
  url: string,
  options: { write?: (text: string) => void; intervalMs?: number } = {},
): () => void {
  const write = options.write ?? ((text: string) => void process.stderr.write(text));
  write(bannerText(url));
  const timer = setInterval(() => write(bannerText(url)), options.intervalMs ?? DEFAULT_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
