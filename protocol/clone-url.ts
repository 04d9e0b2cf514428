// Clone-URL policy shared by the ship (POST /workspaces) and the bridge (repo registry): which git transports
// a URL may use. git itself enforces the same list through GIT_ALLOW_PROTOCOL; this check gives a clear 400
// first and refuses argument-injection shapes (leading `-`, control characters) that git might parse as options.
export const CLONE_URL_MAX_LENGTH = 4096;

export type CloneTransport = 'https' | 'http' | 'ssh' | 'git' | 'file';

export interface CloneUrlPolicy {
  /** Allow `file://` URLs and plain local paths. */
  allowLocalRepos: boolean;
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//;
const TRANSPORT_PREFIX = /^([a-zA-Z][a-zA-Z0-9+.-]*)::/;
const SCP_LIKE = /^(?:[^@/:]+@)?([^/:]+):/;
const CONTROL = /\p{Cc}/u;
const SCHEME_TRANSPORTS: Record<string, CloneTransport> = {
  https: 'https',
  http: 'http',
  ssh: 'ssh',
  'git+ssh': 'ssh',
  'ssh+git': 'ssh',
  git: 'git',
  file: 'file',
};

/** The transport git would use for `url`, or a reason the URL is refused. */
export function classifyCloneUrl(
  url: string,
  policy: CloneUrlPolicy,
): { transport: CloneTransport } | { problem: string } {
  if (url.trim() === '') return { problem: 'clone url must not be empty' };
  if (url.length > CLONE_URL_MAX_LENGTH)
    return { problem: `clone url is longer than ${CLONE_URL_MAX_LENGTH} characters` };
  if (CONTROL.test(url)) return { problem: 'clone url must not contain control characters' };
  if (url.startsWith('-')) return { problem: 'clone url must not start with "-"' };
  const transport = TRANSPORT_PREFIX.exec(url);
  if (transport) return { problem: `clone url transport "${transport[1]}::" is not allowed` };
  const scheme = SCHEME.exec(url);
  let kind: CloneTransport | undefined;
  if (scheme) {
    kind = SCHEME_TRANSPORTS[scheme[1]!.toLowerCase()];
    if (!kind) return { problem: `clone url scheme "${scheme[1]}" is not allowed` };
    const rest = url.slice(scheme[0].length).replace(/^[^@/]*@/, '');
    if (rest.startsWith('-')) return { problem: 'clone url host must not start with "-"' };
  } else {
    const scp = SCP_LIKE.exec(url);
    if (scp && !url.startsWith('/') && !url.startsWith('.')) {
      if (scp[1]!.startsWith('-')) return { problem: 'clone url host must not start with "-"' };
      kind = 'ssh';
    } else {
      kind = 'file';
    }
  }
  if (kind === 'file' && !policy.allowLocalRepos)
    return { problem: 'local repositories are not allowed on this server' };
  return { transport: kind };
}

/** The value for GIT_ALLOW_PROTOCOL matching the policy. */
export function gitAllowProtocol(policy: CloneUrlPolicy): string {
  return ['https', 'http', 'ssh', 'git', ...(policy.allowLocalRepos ? ['file'] : [])].join(':');
}

/** Variables a git child inherits: the basics, TLS trust and proxies; never a secret of the process. */
const GIT_PASS_THROUGH =
  /^(PATH|HOME|USER|LOGNAME|TMPDIR|SSH_AUTH_SOCK|GIT_SSL_CAINFO|GIT_SSL_CAPATH|GIT_SSH_COMMAND|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy)$/;

/**
 * The environment for git against a remote nobody vouches for: inherited basics only, messages in the C
 * locale (so failures can be classified), no prompts, no LFS smudge, no system config, and only the
 * transports the policy allows.
 */
export function gitEnvironment(
  source: Record<string, string | undefined>,
  policy: CloneUrlPolicy,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined && GIT_PASS_THROUGH.test(key)) env[key] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  return Object.assign(env, {
    LC_ALL: 'C',
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_LFS_SKIP_SMUDGE: '1',
    GIT_ALLOW_PROTOCOL: gitAllowProtocol(policy),
    GIT_CONFIG_NOSYSTEM: '1',
  });
}
