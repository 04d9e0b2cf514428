// Splits credentials out of an http(s) clone URL so they never reach a command line (docs/security.md F6):
// git is given the bare URL and a credential helper (set through GIT_CONFIG_* variables) that answers
// from the environment. Shared by the ship's clone and the bridge's branch listing.

export interface SplitUrl {
  /** The URL git sees in argv. */
  url: string;
  /** Environment that lets git restore the credentials; empty when the URL carries none. */
  env: Record<string, string>;
  /** The original URL, when it carried credentials. */
  credentialed: string | null;
}

const HELPER = `!f() { test "$1" = get && printf 'username=%s\\npassword=%s\\n' "$SVC_GIT_USERNAME" "$SVC_GIT_PASSWORD"; }; f`;

export function splitUrlCredentials(raw: string): SplitUrl {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { url: raw, env: {}, credentialed: null };
  }
  if (!/^https?:$/.test(parsed.protocol) || (parsed.username === '' && parsed.password === '')) {
    return { url: raw, env: {}, credentialed: null };
  }
  const username = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return {
    url: parsed.toString(),
    env: {
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'credential.helper',
      GIT_CONFIG_VALUE_0: '',
      GIT_CONFIG_KEY_1: 'credential.helper',
      GIT_CONFIG_VALUE_1: HELPER,
      SVC_GIT_USERNAME: username,
      SVC_GIT_PASSWORD: password,
    },
    credentialed: raw,
  };
}
