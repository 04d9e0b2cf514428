// Where `svc bridge` and `svc launch` get the first admin of a bridge with no users (spec "First admin"):
// SVC_BRIDGE_ADMIN_* (all three or none), else asked at a terminal, else none (the bridge then refuses to
// start unless authentication is off). The environment is checked when the source is made, before anything
// is opened or created: a partial first admin is a start-up error the user sees at once, with no data
// directory left behind.
import { adminFromEnvironment, type FirstAdminSource } from '../bridge/auth/first-admin.js';
import { ask, askNewPassword, interactive } from './prompt.js';

/** Throws at once when the environment names only part of a first admin. */
export function firstAdminSource(env: NodeJS.ProcessEnv = process.env): FirstAdminSource {
  const fromEnv = adminFromEnvironment(env);
  return async () => {
    if (fromEnv) return fromEnv;
    if (!interactive()) return null;
    process.stderr.write('This bridge has no users yet. Create the first admin.\n');
    const username = await ask('Username: ');
    const email = await ask('Email: ');
    const password = await askNewPassword();
    return { username, email, password, role: 'admin' };
  };
}
