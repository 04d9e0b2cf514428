// Where `svc bridge` and `svc launch` get the first admin of a bridge with no users (spec "First admin"):
// SVC_BRIDGE_ADMIN_* (all three or none), else asked at a terminal, else none (the bridge then refuses to
// start unless authentication is off). The spec reads the variables only on a bridge with no users: one
// whose store is still to be made has none, so there a partial set is checked when the source is made,
// before anything is opened or created (the user sees the error at once, and no data directory is left).
// On an existing store the variables are read, as before, only once it has been found empty.
import { adminFromEnvironment, type FirstAdminSource } from '../protocol/first-admin.js';
import { ask, askNewPassword, interactive } from './prompt.js';

/** With `newStore`, throws at once when the environment names only part of a first admin. */
export function firstAdminSource(newStore: boolean, env: NodeJS.ProcessEnv = process.env): FirstAdminSource {
  const checked = newStore ? adminFromEnvironment(env) : undefined;
  return async () => {
    const fromEnv = checked === undefined ? adminFromEnvironment(env) : checked;
    if (fromEnv) return fromEnv;
    if (!interactive()) return null;
    process.stderr.write('This bridge has no users yet. Create the first admin.\n');
    const username = await ask('Username: ');
    const email = await ask('Email: ');
    const password = await askNewPassword();
    return { username, email, password, role: 'admin' };
  };
}
