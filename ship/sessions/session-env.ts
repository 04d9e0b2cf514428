// SVC_SESSION_ENV (issue #27): the variables of the ship's own environment that every workspace session
// receives, named explicitly (a model API key, GH_TOKEN, a proxy). Sessions otherwise start from a scrubbed
// environment (sessions/tmux.ts), so nothing reaches an agent that the operator did not name. A name in the
// ship's own namespace (SVC_*: its tokens, its settings) is refused at start, never passed on. Values travel
// as the per-session variables do: in the creating client's environment, never in argv.

/** The names SVC_SESSION_ENV lists; throws with the reason on a name that may not be passed to sessions. */
export function sessionEnvNames(list: string | undefined): string[] {
  const names = (list ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`SVC_SESSION_ENV: "${name}" is not an environment variable name`);
    if (name.toUpperCase().startsWith('SVC_')) {
      throw new Error(`SVC_SESSION_ENV names ${name}: the ship's own SVC_* variables (its tokens and settings) never reach a session`);
    }
  }
  return [...new Set(names)];
}

/** The listed variables as the ship's environment holds them (an unset one is left out). */
export function sessionEnvValues(names: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) values[name] = value;
  }
  return values;
}
