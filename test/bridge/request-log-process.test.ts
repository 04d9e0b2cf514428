// The bridge's request log as a supervisor sees it (issue #18): one line per request at the default level,
// none for a probe, no WebSocket ticket anywhere, and every line written out by the time a SIGTERM'd
// `npx svc bridge` has exited, though lines go out in batches (server/logger.ts). The event socket is opened
// offering compression, as a browser does.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { bridgeUrlIn, startNpx } from '../helpers/npx.js';
import { makeTempRoot, removeRoot } from '../helpers/ship.js';

let root: string;
beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  await removeRoot(root);
});

const requestLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map(
      (line) =>
        JSON.parse(line) as { msg: string; req?: { method: string; url: string }; res?: { statusCode: number } },
    )
    .filter((line) => line.msg === 'request completed');

describe('the request log of a `svc bridge` process', () => {
  it('has one line per request, no ticket, no probe, and is all written when SIGTERM ends the bridge', async () => {
    const bridge = startNpx(['bridge', '--port', '0', '--data-directory', join(root, 'bridge'), '--insecure-no-auth'], {
      SVC_LOG_LEVEL: 'info',
    });
    try {
      const url = bridgeUrlIn(await bridge.waitFor(/bridge listening on http:\/\/localhost:\d+/));
      for (let i = 0; i < 7; i++) expect((await fetch(`${url}/auth/mode?n=${i}`)).status).toBe(200);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const events = new WebSocket(`${url.replace('http', 'ws')}/events?ticket=secret-ticket-value`, {
        perMessageDeflate: true,
      });
      await new Promise((resolve, reject) => {
        events.once('message', resolve);
        events.once('error', reject);
      });
      expect(events.extensions).toContain('permessage-deflate');
      events.close();
      await new Promise((resolve) => events.once('close', resolve));
    } finally {
      await bridge.terminateThenKill();
    }
    const lines = requestLines(bridge.output());
    for (let i = 0; i < 7; i++) {
      expect(
        lines
          .filter((line) => line.req?.url === `/auth/mode?n=${i}`)
          .map((line) => [line.req!.method, line.res!.statusCode]),
      ).toEqual([['GET', 200]]);
    }
    expect(lines.filter((line) => line.req?.url === '/healthz')).toEqual([]);
    // An upgrade is not a request fastify answers (the socket is handed to the WebSocket route): no line, and
    // the ticket in its URL appears nowhere in the output.
    expect(lines.filter((line) => line.req?.url.startsWith('/events'))).toEqual([]);
    expect(bridge.output()).not.toContain('secret-ticket-value');
  }, 90_000);
});
