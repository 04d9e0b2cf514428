// Where `svc bridge` and `svc launch` get the first admin of a bridge with no users (spec "First admin"):
// SVC_BRIDGE_ADMIN_* (all three or none), else asked at a terminal, else none (the bridge then refuses to
// start unless authentication is off).
import { adminFromEnvironment } from '../bridge/auth/first-admin.js';
import type { NewUser } from '../bridge/auth/accounts.js';
import { ask, askNewPassword, interactive } from './prompt.js';

export async function firstAdmin(): Promise<NewUser | null> {
  const fromEnv = adminFromEnvironment(process.env);
  if (fromEnv) return fromEnv;
  if (!interactive()) return null;
  process.stderr.write('This bridge has no users yet. Create the first admin.\n');
  const username = await ask('Username: ');
  const email = await ask('Email: ');
  const password = await askNewPassword();
  return { username, email, password, role: 'admin' };
}
