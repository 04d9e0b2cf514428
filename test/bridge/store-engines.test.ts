// The bridge keeps its roster and registry across restarts on either engine, and the event hub drops a
// subscriber that stops reading without slowing the others.
import { insecureBridge } from '../helpers/bridge.js';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { startBridge } from '../../bridge/server.js';
import { EventHub } from '../../bridge/events/event-hub.js';
import { segmentOf } from '../../bridge/events/broadcast-frame.js';
import { postgresSchema, storeEngines } from '../helpers/databases.js';
import { call, makeTempRoot, removeRoot } from '../helpers/ship.js';

let root: string;
beforeAll(async () => {
  root = await makeTempRoot();
});
afterAll(async () => {
  await removeRoot(root);
});

describe.each(storeEngines())('bridge restart on $name', (engine) => {
  it('keeps the repo registry', async () => {
    const schema = engine.name === 'postgres' ? await postgresSchema() : null;
    const options = {
      ...insecureBridge,
      port: 0,
      dataDirectory: join(root, `data-${engine.name}`),
      databaseUrl: schema?.url,
      logger: pino({ level: 'silent' }),
    };
    try {
      const first = await startBridge(options);
      expect(first.store.db.engine).toBe(engine.name);
      await call(first.url, 'POST', '/repos', {
        name: 'kept',
        url: 'https://example.com/kept.git',
        provider: 'github',
      });
      await first.close();
      const second = await startBridge(options);
      expect((await call(second.url, 'GET', '/repos')).body).toEqual([
        { name: 'kept', url: 'https://example.com/kept.git', provider: 'github' },
      ]);
      await second.close();
    } finally {
      await schema?.drop();
    }
  }, 60_000);
});

describe('event hub', () => {
  it('closes a subscriber with more than 256 KiB waiting (1009) and keeps serving the others', () => {
    const sent: string[] = [];
    const fake = (buffered: number) => {
      const socket = {
        bufferedAmount: buffered,
        closed: null as null | { code: number; reason: string },
        listeners: {} as Record<string, () => void>,
        on(event: string, listener: () => void) {
          this.listeners[event] = listener;
          return this;
        },
        send(text: string) {
          sent.push(text);
        },
        close(code: number, reason: string) {
          this.closed = { code, reason };
        },
      };
      return socket;
    };
    const hub = new EventHub(() => [segmentOf('[]')]);
    const healthy = fake(0);
    const stuck = fake(0);
    hub.add(healthy as unknown as WebSocket);
    hub.add(stuck as unknown as WebSocket);
    stuck.bufferedAmount = 300 * 1024;
    hub.publish('workspace.created', {
      repoName: 'r',
      name: 'n',
      branch: 'main',
      active: false,
      agent: null,
      ship: 's',
      ephemeral: null,
    });
    expect(stuck.closed).toEqual({ code: 1009, reason: 'Terminal buffer limit exceeded' });
    expect(hub.size).toBe(1);
    expect(sent.filter((text) => text.includes('workspace.created'))).toHaveLength(1);
  });
});
