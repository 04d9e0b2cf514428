import { describe, expect, it } from 'vitest';
import { classifyCloneUrl, gitAllowProtocol, gitEnvironment } from './clone-url.js';
import { redactTicket, redactUrlCredentials } from './redact.js';

const open = { allowLocalRepos: true };
const closed = { allowLocalRepos: false };

describe('clone url policy', () => {
  it.each([
    ['https://github.com/o/r.git', 'https'],
    ['http://example.com/r.git', 'http'],
    ['ssh://git@example.com/r.git', 'ssh'],
    ['git@github.com:o/r.git', 'ssh'],
    ['git://example.com/r.git', 'git'],
    ['file:///srv/r.git', 'file'],
    ['/srv/r.git', 'file'],
    ['./r.git', 'file'],
  ])('%s uses %s', (url, transport) => {
    expect(classifyCloneUrl(url, open)).toEqual({ transport });
  });

  it.each([
    ['ext::sh -c touch% /tmp/x', 'transport "ext::" is not allowed'],
    ['-uhelp', 'must not start with "-"'],
    ['--upload-pack=touch /tmp/x', 'must not start with "-"'],
    ['ssh://-oProxyCommand=x/r', 'host must not start with "-"'],
    ['https://a/b\nc', 'control characters'],
    ['', 'must not be empty'],
    ['x'.repeat(5000), 'longer than'],
    ['fd::17', 'transport "fd::" is not allowed'],
    ['gopher://x/r', 'scheme "gopher" is not allowed'],
  ])('%j is refused (%s)', (url, reason) => {
    const result = classifyCloneUrl(url, open);
    expect('problem' in result && result.problem).toContain(reason);
  });

  it('refuses local repositories when the policy forbids them', () => {
    expect(classifyCloneUrl('file:///srv/r.git', closed)).toEqual({
      problem: 'local repositories are not allowed on this server',
    });
    expect(classifyCloneUrl('/srv/r.git', closed)).toEqual({
      problem: 'local repositories are not allowed on this server',
    });
    expect(classifyCloneUrl('https://x/r.git', closed)).toEqual({ transport: 'https' });
    expect(gitAllowProtocol(closed)).toBe('https:http:ssh:git');
    expect(gitAllowProtocol(open)).toBe('https:http:ssh:git:file');
  });

  it('gives git the basics and no secret of the process', () => {
    const env = gitEnvironment(
      {
        PATH: '/bin',
        HOME: '/h',
        SVC_BRIDGE_TOKEN: 'secret',
        GIT_DIR: '/elsewhere',
        GIT_SSL_CAINFO: '/ca',
        LC_ALL: 'de_DE',
      },
      { allowLocalRepos: false },
    );
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/h',
      GIT_SSL_CAINFO: '/ca',
      LC_ALL: 'C',
      LANG: 'C',
      GIT_TERMINAL_PROMPT: '0',
      GIT_LFS_SKIP_SMUDGE: '1',
      GIT_ALLOW_PROTOCOL: 'https:http:ssh:git',
      GIT_CONFIG_NOSYSTEM: '1',
    });
  });

  it('masks ticket query values', () => {
    expect(redactTicket('/events?ticket=abc&x=1')).toBe('/events?ticket=***&x=1');
    expect(redactTicket('/a?b=1&ticket=abc')).toBe('/a?b=1&ticket=***');
  });

  it('redacts credentials in URLs inside text', () => {
    expect(redactUrlCredentials("fatal: repository 'https://user:s3cret@host/x.git/' not found")).toBe(
      "fatal: repository 'https://***@host/x.git/' not found",
    );
  });
});
