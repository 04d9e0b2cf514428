// The first admin of a bridge with no users (spec "First admin"): from SVC_BRIDGE_ADMIN_USER/_EMAIL/_PASSWORD
// (all three or none; some is a start-up error naming the missing ones), else from whoever the caller asks
// (the CLI prompts at a terminal). Read once, only while no user exists.
import type { Accounts, NewUser } from './accounts.js';
import type { UsersStore } from '../store/users-store.js';

export type FirstAdminSource = () => Promise<NewUser | null>;

const VARIABLES = ['SVC_BRIDGE_ADMIN_USER', 'SVC_BRIDGE_ADMIN_EMAIL', 'SVC_BRIDGE_ADMIN_PASSWORD'] as const;

/** The admin the environment names, null when it names none; throws when it names only part of one. */
export function adminFromEnvironment(env: NodeJS.ProcessEnv): NewUser | null {
  const present = VARIABLES.filter((name) => env[name] !== undefined && env[name] !== '');
  if (present.length === 0) return null;
  const missing = VARIABLES.filter((name) => !present.includes(name));
  if (missing.length > 0) throw new Error(`the first admin needs all of ${VARIABLES.join(', ')}; missing: ${missing.join(', ')}`);
  return { username: env.SVC_BRIDGE_ADMIN_USER!, email: env.SVC_BRIDGE_ADMIN_EMAIL!, password: env.SVC_BRIDGE_ADMIN_PASSWORD!, role: 'admin' };
}

export const NO_FIRST_ADMIN =
  'the bridge has no users: set SVC_BRIDGE_ADMIN_USER, SVC_BRIDGE_ADMIN_EMAIL and SVC_BRIDGE_ADMIN_PASSWORD, ' +
  'start it at a terminal to be asked, or run with --insecure-no-auth';

/** Creates the first admin when there is no user; returns its name, or null when users exist. */
export async function ensureFirstAdmin(users: UsersStore, accounts: Accounts, source: FirstAdminSource | undefined): Promise<string | null> {
  if ((await users.count()) > 0) return null;
  const admin = source ? await source() : null;
  if (!admin) throw new Error(NO_FIRST_ADMIN);
  try {
    const user = await accounts.create({ ...admin, role: 'admin' });
    return user.username;
  } catch (error) {
    throw new Error(`cannot create the first admin: ${(error as Error).message}`);
  }
}
