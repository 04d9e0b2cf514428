// Starts a real ship in-process on port 0 with its own temp fleet directory and private tmux server, and
import { request as httpRequest } from 'node:http';
// takes everything down afterwards: ship, tmux server, temp directory. Nothing outlives the test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startShip, type Ship, type ShipOptions } from '../../ship/server.js';

/** A shell with no rc files: the tests must not depend on the machine's profile scripts. */
export const TEST_SESSION_COMMAND = 'bash --noprofile --norc';

export interface TestShip {
  ship: Ship;
  root: string;
  url: string;
  stop(): Promise<void>;
  /** Stops the ship but leaves tmux sessions and files (for restart tests). */
  stopShipOnly(): Promise<void>;
}

export async function makeTempRoot(prefix = 'svc-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function startTestShip(root: string, options: Partial<ShipOptions> = {}): Promise<TestShip> {
  const ship = await startShip({
    fleetDirectory: join(root, 'fleet'),
    port: 0,
    name: 'test-ship',
    sessionCommand: TEST_SESSION_COMMAND,
    logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
    ...options,
  });
  let stopped = false;
  return {
    ship,
    root,
    url: ship.url,
    async stopShipOnly() {
      if (stopped) return;
      stopped = true;
      await ship.close();
    },
    async stop() {
      if (!stopped) {
        stopped = true;
        await ship.close();
      }
      await ship.tmux.killServer();
    },
  };
}

export async function removeRoot(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
}

export interface Reply<T = unknown> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** A JSON call to a ship; `body` is the parsed JSON (or null when the response is not JSON). */
export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply<T>> {
  const response = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'error',
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: response.status, body: parsed as T, text, headers: response.headers };
}

export const path = (repo: string, name: string, suffix = '') =>
  `/workspaces/${encodeURIComponent(repo)}/${encodeURIComponent(name)}${suffix}`;

/** A request whose path is sent byte for byte (fetch would normalize `%2E%2E` segments away). */
export function rawCall(
  base: string,
  method: string,
  rawPath: string,
  headers: Record<string, string> = {},
): Promise<Reply<any>> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: hostname, port, method, path: rawPath, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          body = null;
        }
        resolve({
          status: response.statusCode ?? 0,
          body,
          text,
          headers: new Headers(response.headers as Record<string, string>),
        });
      });
    });
    request.on('error', reject);
    request.end();
  });
}
