// Reading what a server exposes for operations: samples of a Prometheus text exposition, and the JSON log
// lines a server process wrote (for "this request was / was not logged").

/** The value of the sample `name{labels}` (labels matched exactly, in any order), or undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key!, value!] as const);
    found.sort(([a], [b]) => a.localeCompare(b));
    if (JSON.stringify(found) === JSON.stringify(wanted)) return Number(match[3]);
  }
  return undefined;
}

/** The JSON lines of a process's output (other lines skipped). */
export function jsonLines(output: string): Array<Record<string, any>> {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, any>];
    } catch {
      return [];
    }
  });
}

/** The request paths a server's request log lines name. */
export function loggedPaths(output: string): string[] {
  return jsonLines(output)
    .map((line) => line.req?.url as string | undefined)
    .filter((url): url is string => typeof url === 'string')
    .map((url) => url.split('?')[0]!);
}
