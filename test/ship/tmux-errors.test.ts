// tmux's failures are classified where tmux is run (ship/sessions/tmux.ts), not by matching its words
// elsewhere: creating a session that exists is a TmuxCommandFailed of kind `duplicate-session` (the
// activation race the workspace service answers with `workspace already active`), a command on a session
// that is gone one of kind `no-session` (input into a session that ended meanwhile: `workspace not active`),
// any other a `failed`.
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { Tmux, TmuxCommandFailed } from '../../ship/sessions/tmux.js';

const tmux = new Tmux(`svc-test-errors-${randomBytes(4).toString('hex')}`, 'exec tail -f /dev/null');
afterAll(() => tmux.killServer());

it('a second session of the same name is a duplicate-session failure, a gone one no-session, others plain failures', async () => {
  await tmux.ensureServer();
  await tmux.newSession('svc-errors-one', '/', {});
  const again = await tmux.newSession('svc-errors-one', '/', {}).catch((error: unknown) => error);
  expect(again).toBeInstanceOf(TmuxCommandFailed);
  expect(again).toMatchObject({
    kind: 'duplicate-session',
    message: 'tmux new-session failed: duplicate session: svc-errors-one',
  });
  // Real tmux, the session gone: the paste's own failure says so.
  const gone = await tmux.paste('svc-errors-gone', 'x', false).catch((error: unknown) => error);
  expect(gone).toBeInstanceOf(TmuxCommandFailed);
  expect(gone).toMatchObject({
    kind: 'no-session',
    message: expect.stringMatching(/^tmux paste-buffer failed: can't find/),
  });
  expect(new TmuxCommandFailed('kill-session', 1, 'no server running on /tmp/tmux-0/x\n')).toMatchObject({
    kind: 'no-session',
  });
  expect(new TmuxCommandFailed('kill-session', 1, 'server exited unexpectedly\n')).toMatchObject({
    kind: 'failed',
    message: 'tmux kill-session failed: server exited unexpectedly',
  });
  expect(new TmuxCommandFailed('list-sessions', 1, '').message).toBe('tmux list-sessions failed: exit code 1');
});
