// Reading what a server exposes for operations: samples of a Prometheus text exposition, and the JSON log
// lines a server process wrote (for "this request was / was not logged"), and what a metrics port answers.
import { expect } from 'vitest';
import { call, rawCall } from './ship.js';

/** The value of the sample `name{labels}` (labels matched exactly, in any order), or undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(
      ([, key, value]) => [key!, value!] as const,
    );
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

/**
 * What a `--metrics-port` answers: `GET /metrics` without a credential (returned, for more checks) and from a
 * pod IP as Host; 404 on every path in `others`; 405 for another method; the open-server guard (421 for a
 * foreign Host name, 403 for a foreign Origin).
 */
export async function expectMetricsPortOnly(metricsUrl: string, others: string[]): Promise<string> {
  const reply = await call(metricsUrl, 'GET', '/metrics');
  expect(reply.status).toBe(200);
  for (const other of others) {
    expect(await call(metricsUrl, 'GET', other)).toMatchObject({
      status: 404,
      body: { error: `route not found: GET ${other} (this port serves only GET /metrics)` },
    });
  }
  expect(await call(metricsUrl, 'POST', '/metrics')).toMatchObject({
    status: 405,
    body: { error: 'method not allowed: POST /metrics' },
  });
  // fetch sends its own Host: these go through node:http.
  expect((await rawCall(metricsUrl, 'GET', '/metrics', { host: '10.1.2.3:9464' })).status).toBe(200);
  expect(await rawCall(metricsUrl, 'GET', '/metrics', { host: 'rebound.example.com:9464' })).toMatchObject({
    status: 421,
    body: { error: 'host not allowed: rebound.example.com' },
  });
  expect(await call(metricsUrl, 'GET', '/metrics', undefined, { origin: 'https://evil.example.com' })).toMatchObject({
    status: 403,
    body: { error: 'cross-origin requests are not allowed (origin https://evil.example.com)' },
  });
  return reply.text;
}
