// tmux's failures are classified where tmux is run (ship/sessions/tmux.ts), not by matching its words
// elsewhere: creating a session that exists is a TmuxCommandFailed of kind `duplicate-session` (the
// activation race the workspace service answers with `workspace already active`), any other a `failed`.
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { Tmux, TmuxCommandFailed } from '../../ship/sessions/tmux.js';

const tmux = new Tmux(`svc-test-errors-${randomBytes(4).toString('hex')}`, 'exec tail -f /dev/null');
afterAll(() => tmux.killServer());

it('a second session of the same name is a duplicate-session failure; other failures are plain ones', async () => {
  await tmux.ensureServer();
  await tmux.newSession('svc-errors-one', '/', {});
  const again = await tmux.newSession('svc-errors-one', '/', {}).catch((error: unknown) => error);
  expect(again).toBeInstanceOf(TmuxCommandFailed);
  expect(again).toMatchObject({
    kind: 'duplicate-session',
    message: 'tmux new-session failed: duplicate session: svc-errors-one',
  });
  expect(new TmuxCommandFailed('kill-session', 1, "can't find session: x\n")).toMatchObject({
    kind: 'failed',
    message: "tmux kill-session failed: can't find session: x",
  });
  expect(new TmuxCommandFailed('list-sessions', 1, '').message).toBe('tmux list-sessions failed: exit code 1');
});
