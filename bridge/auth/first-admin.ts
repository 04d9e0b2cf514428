// Seeding the first admin of a bridge with no users (spec "First admin"): from the source the caller gives
// (the environment, read by protocol/first-admin.ts, or the CLI's prompt at a terminal). Read once, only
// while no user exists.
import type { FirstAdminSource } from '../../protocol/first-admin.js';
import type { Accounts } from './accounts.js';
import type { UsersStore } from '../store/users-store.js';
import { messageOf } from '../../protocol/index.js';

export const NO_FIRST_ADMIN =
  'the bridge has no users: set SVC_BRIDGE_ADMIN_USER, SVC_BRIDGE_ADMIN_EMAIL and SVC_BRIDGE_ADMIN_PASSWORD, ' +
  'start it at a terminal to be asked, or run with --insecure-no-auth';

/** Creates the first admin when there is no user; returns its name, or null when users exist. */
export async function ensureFirstAdmin(
  users: UsersStore,
  accounts: Accounts,
  source: FirstAdminSource | undefined,
): Promise<string | null> {
  if ((await users.count()) > 0) return null;
  const admin = source ? await source() : null;
  if (!admin) throw new Error(NO_FIRST_ADMIN);
  try {
    const user = await accounts.create({ ...admin, role: 'admin' });
    return user.username;
  } catch (error) {
    throw new Error(`cannot create the first admin: ${messageOf(error)}`);
  }
}
