// Browser-facing request checks shared by the ship and the bridge (docs/security.md H1): a page from another
// origin must not drive a server (cross-site WebSocket hijacking, body-less CSRF), and an open server must
// not answer a DNS-rebinding Host name.

export interface RequestFacts {
  origin?: string;
  host: string;
  secFetchSite?: string;
  /** Extra origins allowed besides the request's own (e.g. the bridge's public URL). */
  allowedOrigins?: readonly string[];
}

/** Why a request is refused as cross-origin (403), or null. Clients without an Origin (CLIs) pass. */
export function crossOriginProblem(facts: RequestFacts): string | null {
  if (facts.origin !== undefined) {
    const own = facts.origin === `http://${facts.host}` || facts.origin === `https://${facts.host}`;
    if (!own && !facts.allowedOrigins?.includes(facts.origin))
      return `cross-origin requests are not allowed (origin ${facts.origin})`;
  }
  if (facts.secFetchSite === 'cross-site') return 'cross-site requests are not allowed';
  return null;
}

/** The host name of a Host header (without port; IPv6 without brackets), lower-cased. */
export function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(1, hostHeader.indexOf(']')).toLowerCase();
  return hostHeader.replace(/:\d+$/, '').toLowerCase();
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const IPV6 = /^[0-9a-f:.]+$/i;

export function isIpLiteral(hostname: string): boolean {
  return IPV4.test(hostname) || (hostname.includes(':') && IPV6.test(hostname));
}

/** Whether an open server may answer this Host: loopback names, IP literals, or one of `allowed`. */
export function hostAllowed(hostHeader: string, allowed: readonly string[]): boolean {
  const hostname = hostnameOf(hostHeader);
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    isIpLiteral(hostname) ||
    allowed.some((name) => name.toLowerCase() === hostname)
  );
}
