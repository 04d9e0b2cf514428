// SVC_SESSION_ENV (issue #27): the variables of the ship's own environment that every workspace session
// receives, named explicitly (a model API key, GH_TOKEN, a proxy). Sessions otherwise start from a scrubbed
// environment (ship/sessions/tmux.ts), so nothing reaches an agent that the operator did not name. A name in the
// ship's own namespace (SVC_*: its tokens, its settings) is refused at start, never passed on. Values travel
// as the per-session variables do: in the creating client's environment, never in argv.

/** Why `name` may not be passed to sessions, or null when it may. */
export function sessionEnvProblem(name: string): string | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `"${name}" is not an environment variable name`;
  if (name.toUpperCase().startsWith('SVC_'))
    return `${name}: the ship's own SVC_* variables (its tokens and settings) never reach a session`;
  return null;
}

/** The names SVC_SESSION_ENV lists; throws with the reason on a name that may not be passed to sessions. */
export function sessionEnvNames(list: string | undefined): string[] {
  const names = (list ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of names) {
    const problem = sessionEnvProblem(name);
    if (problem)
      throw new Error(problem.startsWith('"') ? `SVC_SESSION_ENV: ${problem}` : `SVC_SESSION_ENV names ${problem}`);
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
