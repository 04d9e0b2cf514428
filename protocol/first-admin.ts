// The first admin of a bridge with no users (spec "First admin") as its environment names it:
// SVC_BRIDGE_ADMIN_USER, _EMAIL and _PASSWORD, all three or none (some is a start-up error naming the
// missing ones). The bridge seeds it (bridge/auth/first-admin.ts); the CLI reads the same variables before
// it asks at a terminal, and `svc launch` passes its answer on.

export interface FirstAdmin {
  username: string;
  email: string;
  password: string;
  /** Always admin: the bridge creates it as one whatever the source says. */
  role?: 'admin';
}

/** Where a bridge with no users gets its first admin: the environment, a prompt, or nobody (null). */
export type FirstAdminSource = () => Promise<FirstAdmin | null>;

const VARIABLES = ['SVC_BRIDGE_ADMIN_USER', 'SVC_BRIDGE_ADMIN_EMAIL', 'SVC_BRIDGE_ADMIN_PASSWORD'] as const;

/** The admin the environment names, null when it names none; throws when it names only part of one. */
export function adminFromEnvironment(env: Readonly<Record<string, string | undefined>>): FirstAdmin | null {
  const present = VARIABLES.filter((name) => env[name] !== undefined && env[name] !== '');
  if (present.length === 0) return null;
  const missing = VARIABLES.filter((name) => !present.includes(name));
  if (missing.length > 0)
    throw new Error(`the first admin needs all of ${VARIABLES.join(', ')}; missing: ${missing.join(', ')}`);
  return {
    username: env.SVC_BRIDGE_ADMIN_USER!,
    email: env.SVC_BRIDGE_ADMIN_EMAIL!,
    password: env.SVC_BRIDGE_ADMIN_PASSWORD!,
    role: 'admin',
  };
}
