// SVC_SESSION_ENV through a real `npx svc ship` (issue #27): the variables it names reach every workspace
// session, the ship's own credentials never do, and a list naming one of them refuses the start with a
// message that says which.
import { expect, it } from 'vitest';
import { runNpx } from '../helpers/npx.js';
import { useNpxShip } from '../helpers/npx-fleet.js';
import { freePort } from '../helpers/ports.js';
import { connectTerminal, terminalUrl } from '../helpers/terminal.js';

const MODEL_KEY = 'model-key-0123456789';
const BRIDGE_TOKEN = 'bridge-token-never-in-a-session';

const fleet = useNpxShip('agents', ['w1'], {
  SVC_SESSION_ENV: 'MODEL_KEY, HTTPS_PROXY_FOR_TEST',
  MODEL_KEY,
  SVC_BRIDGE_TOKEN: BRIDGE_TOKEN,
});

it('gives a session the variables SVC_SESSION_ENV names, and never the ship token', async () => {
  // The ship's token pair is a ship's to present; it is not among what a session may see.
  const terminal = await connectTerminal(`${terminalUrl(fleet.url, 'app', 'w1')}`, {
    cols: 100,
    rows: 20,
    perMessageDeflate: true,
    headers: { authorization: `Bearer ${BRIDGE_TOKEN}` },
  });
  await terminal.until((screen) => /[$#] ?$/m.test(screen.text()));
  terminal.input('echo "key=[$MODEL_KEY] bridge=[${SVC_BRIDGE_TOKEN:-none}] unset=[${HTTPS_PROXY_FOR_TEST-unset}]"\r');
  await terminal.until((screen) => screen.text().includes('key=[model'));
  expect(terminal.screen.text()).toContain(`key=[${MODEL_KEY}] bridge=[none] unset=[unset]`);
  await terminal.close();
}, 30_000);

it("refuses to start when SVC_SESSION_ENV names one of the ship's own variables", async () => {
  const run = await runNpx(['ship', '--port', String(await freePort()), '--fleet-directory', `${fleet.root}/refused`], {
    SVC_SESSION_ENV: 'MODEL_KEY,SVC_BRIDGE_TOKEN',
    HOME: fleet.root,
  });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(
    "svc: SVC_SESSION_ENV names SVC_BRIDGE_TOKEN: the ship's own SVC_* variables (its tokens and settings) never reach a session",
  );
}, 60_000);
