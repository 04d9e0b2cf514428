// The API path of one workspace, `/workspaces/<repo>/<name>[suffix]`, each name one encoded path segment:
// the same on a ship and on the bridge, for every component that calls either. TypeBox-free, so the CLI can
// import it without loading schemas at start-up.

export function workspacePath(repo: string, name: string, suffix = ''): string {
  return `/workspaces/${encodeURIComponent(repo)}/${encodeURIComponent(name)}${suffix}`;
}
