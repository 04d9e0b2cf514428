// The operator's own list/watch loop (operator/runtime/watch.ts) against the fake Kubernetes API: it must
// survive every way a watch ends — a cut in the middle of an event line, 410 on resume (in-stream and as HTTP
// status), an API server restarted with a new resourceVersion history (forward: 410; rewound: 504), a stream
// that goes silent on a half-open connection — and never lose an update: after any of them, the cache equals
// the server and every object's latest resourceVersion has been reported.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeKubeApi } from '../fakes/kube-api/index.js';
import { until } from '../helpers/poll.js';
import { KubeHttp } from '../../operator/kube/http.js';
import { ListWatch, type ListWatchOptions, type WatchRestartReason } from '../../operator/runtime/watch.js';
import { quietLog, Recorder, SHIP_API, SHIPS, ship, startFake } from './runtime-fixture.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Harness {
  fake: FakeKubeApi;
  watch: ListWatch;
  recorder: Recorder;
  restarts: WatchRestartReason[];
}

async function harness(
  options: Partial<ListWatchOptions> = {},
  fakeOptions: Parameters<typeof startFake>[0] = {},
  configFor?: (fake: FakeKubeApi) => Promise<KubeConfig>,
): Promise<Harness> {
  const { fake, config } = await startFake(fakeOptions);
  cleanups.push(() => fake.close());
  const recorder = new Recorder();
  const restarts: WatchRestartReason[] = [];
  const watch = new ListWatch({
    http: new KubeHttp(configFor ? await configFor(fake) : config),
    resource: SHIPS,
    namespace: 'default',
    log: quietLog,
    onEvent: recorder.onEvent,
    onRestart: (reason) => restarts.push(reason),
    restart: { baseMs: 20, maxMs: 200 },
    ...options,
  });
  cleanups.push(() => watch.stop());
  watch.start();
  await watch.whenSynced();
  return { fake, watch, recorder, restarts };
}

/** Waits until the cache holds exactly the server's ships at their resourceVersions, and each was reported. */
async function converged({ fake, watch, recorder }: Harness, timeoutMs = 10_000): Promise<void> {
  await until(
    async () => {
      const server = fake.list(SHIP_API, 'Ship', 'default');
      if (server.length !== watch.cache.size) return false;
      return server.every((object) => {
        const cached = watch.cache.get(`default/${object.metadata.name}`);
        return (
          cached?.metadata?.resourceVersion === object.metadata.resourceVersion &&
          recorder.saw('upsert', object.metadata.name!, object.metadata.resourceVersion)
        );
      });
    },
    'the cache to match the server and every latest resourceVersion to be reported',
    timeoutMs,
  );
}

function touch(fake: FakeKubeApi, name: string, round: number): void {
  fake.writeStatus(SHIP_API, 'Ship', name, { round });
}

function listRequests(fake: FakeKubeApi): number {
  return fake.requests.filter((request) => request.path.endsWith('/ships') && !request.query.includes('watch=')).length;
}

describe('operator list/watch loop', () => {
  it('lists, then reports every add, change and delete from the watch', async () => {
    const h = await harness();
    h.fake.create(ship('a'));
    h.fake.create(ship('b'));
    await converged(h);
    touch(h.fake, 'a', 1);
    h.fake.remove(SHIP_API, 'Ship', 'b');
    await converged(h);
    await until(async () => h.recorder.saw('delete', 'b'), 'the deletion of b to be reported');
    expect([...h.watch.cache.keys()]).toEqual(['default/a']);
    expect(listRequests(h.fake)).toBe(1);
  });

  it('survives watch streams cut in the middle of an event line, resuming from the last resourceVersion without a relist', async () => {
    const h = await harness();
    for (const name of ['a', 'b', 'c']) h.fake.create(ship(name));
    await converged(h);
    for (let round = 0; round < 15; round += 1) {
      touch(h.fake, ['a', 'b', 'c'][round % 3]!, round);
      h.fake.dropWatches({ midEvent: true });
      // A change while no watch is open: it must arrive through the resumed watch's replay.
      touch(h.fake, ['c', 'a', 'b'][round % 3]!, round + 100);
      await until(async () => h.fake.openWatches > 0, 'the watch to be open again', 5_000, 5);
    }
    await converged(h);
    expect(listRequests(h.fake)).toBe(1);
    const watches = h.fake.requests.filter((request) => request.query.includes('watch='));
    expect(watches.length).toBeGreaterThanOrEqual(16);
    expect(h.restarts.filter((reason) => reason === 'error').length).toBeGreaterThanOrEqual(15);
  });

  it('relists on 410 when resuming after a compaction: in-stream ERROR event and HTTP 410 alike', async () => {
    for (const mode of ['event', 'http'] as const) {
      const h = await harness({}, { tooOldResourceVersion: mode });
      h.fake.create(ship('a'));
      h.fake.create(ship('gone'));
      await converged(h);
      // Changes the resumed watch can no longer replay: the history is compacted while no watch is open.
      h.fake.closeWatches();
      h.fake.dropWatches();
      touch(h.fake, 'a', 1);
      h.fake.remove(SHIP_API, 'Ship', 'gone');
      h.fake.create(ship('new'));
      h.fake.compact();
      await converged(h);
      expect(h.recorder.saw('delete', 'gone')).toBe(true);
      expect(listRequests(h.fake)).toBeGreaterThanOrEqual(2);
      expect(h.restarts).toContain('expired');
      await h.watch.stop();
      await h.fake.close();
    }
  });

  it('relists when an open watch is expired with an in-stream 410', async () => {
    const h = await harness();
    h.fake.create(ship('a'));
    await converged(h);
    h.fake.expireWatches();
    touch(h.fake, 'a', 2);
    await converged(h);
    expect(h.restarts).toContain('expired');
    expect(listRequests(h.fake)).toBe(2);
  });

  it('follows an API server restarted with a new resourceVersion history, forward (410) and rewound (504)', async () => {
    for (const rewind of [false, true]) {
      const h = await harness();
      h.fake.create(ship('a'));
      h.fake.create(ship('b'));
      // Enough history that, rewound, the watch's resourceVersion lies in the new history's future.
      for (let round = 0; round < 10; round += 1) touch(h.fake, 'a', round);
      await converged(h);
      const before = h.watch.lastResourceVersion;
      await h.fake.restart({ rewind, downMs: 150 });
      touch(h.fake, 'b', 7);
      h.fake.create(ship('c'));
      await converged(h);
      // Every object now carries a resourceVersion of the new history, and the cache holds those.
      expect(h.watch.cache.get('default/a')!.metadata!.resourceVersion).toBe(
        h.fake.read(SHIP_API, 'Ship', 'a', 'default')!.metadata.resourceVersion,
      );
      expect((h.watch.cache.get('default/b') as { status?: { round?: number } }).status?.round).toBe(7);
      expect(h.watch.lastResourceVersion).not.toBe(before);
      expect(listRequests(h.fake)).toBeGreaterThanOrEqual(2);
      await h.watch.stop();
      await h.fake.close();
    }
  });

  it('restarts a stream that went silent (half-open connection) after the watchdog period, and catches up', async () => {
    let proxy: FreezingProxy | undefined;
    const h = await harness({ watchdogMs: 800 }, { bookmarkIntervalMs: 200 }, async (fake) => {
      proxy = await FreezingProxy.start(fake.port);
      cleanups.push(() => proxy!.close());
      // The kubeconfig as written, pointed at the proxy (the serving certificate names 127.0.0.1).
      const path = join(`${fake.kubeconfigPath}.proxied`);
      writeFileSync(
        path,
        readFileSync(fake.kubeconfigPath, 'utf8').replace(`127.0.0.1:${fake.port}`, `127.0.0.1:${proxy.port}`),
      );
      const config = new KubeConfig();
      config.loadFromFile(path);
      return config;
    });
    h.fake.create(ship('a'));
    await converged(h);
    // Healthy bookmarks keep the watchdog quiet.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(h.restarts).not.toContain('silent');
    proxy!.freezeOpenConnections();
    const frozenAt = Date.now();
    touch(h.fake, 'a', 3);
    await converged(h, 5_000);
    const took = Date.now() - frozenAt;
    expect(h.restarts).toContain('silent');
    // The watchdog counts from the last line received (a bookmark at most 200 ms before the freeze).
    expect(took).toBeGreaterThanOrEqual(550);
    expect(took).toBeLessThan(3_000);
  });

  it('a periodic resync relists and reports every object again', async () => {
    const h = await harness({ resyncMs: 300 });
    h.fake.create(ship('a'));
    await converged(h);
    const before = h.recorder.events.filter((event) => event.name === 'a').length;
    await until(
      async () => h.recorder.events.filter((event) => event.name === 'a').length >= before + 2,
      'two resyncs to report a again',
      5_000,
    );
    expect(h.restarts).toContain('resync');
  });

  it('keeps retrying with capped backoff while the API server is down, then converges', async () => {
    const h = await harness({ restart: { baseMs: 20, maxMs: 100 } });
    h.fake.create(ship('a'));
    await converged(h);
    h.fake.inject({ status: 503, pathIncludes: '/ships', times: 30 });
    h.fake.dropWatches();
    touch(h.fake, 'a', 9);
    await converged(h);
    expect(h.restarts.filter((reason) => reason === 'error').length).toBeGreaterThanOrEqual(5);
  });

  it('never loses an update under a storm of changes and faults', async () => {
    const h = await harness();
    const names = Array.from({ length: 12 }, (_, index) => `s${index}`);
    for (const name of names) h.fake.create(ship(name));
    const faults = [
      () => h.fake.dropWatches({ midEvent: true }),
      () => h.fake.dropWatches(),
      () => h.fake.expireWatches(),
      () => h.fake.closeWatches(),
      () => {
        h.fake.dropWatches();
        h.fake.compact();
      },
    ];
    for (let round = 0; round < 60; round += 1) {
      const name = names[(round * 7) % names.length]!;
      if (round % 11 === 10) h.fake.remove(SHIP_API, 'Ship', name);
      else if (!h.fake.read(SHIP_API, 'Ship', name, 'default')) h.fake.create(ship(name));
      else touch(h.fake, name, round);
      if (round % 4 === 0) faults[(round / 4) % faults.length]!();
      // Pacing: a turn for the watches between rounds of changes and faults.
      if (round % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 15));
    }
    await converged(h, 15_000);
    for (const name of names) {
      if (!h.fake.read(SHIP_API, 'Ship', name, 'default')) expect(h.recorder.saw('delete', name)).toBe(true);
    }
  });
});

/** A TCP proxy whose open connections can be frozen: they stay open and silent, both ways; new ones pass. */
class FreezingProxy {
  private readonly pairs = new Set<{ client: Socket; upstream: Socket; frozen: boolean }>();
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<FreezingProxy> {
    let proxy!: FreezingProxy;
    const server = createServer((client) => {
      const upstream = connect(targetPort, '127.0.0.1');
      const pair = { client, upstream, frozen: false };
      proxy.pairs.add(pair);
      client.on('data', (chunk) => {
        if (!pair.frozen) upstream.write(chunk);
      });
      upstream.on('data', (chunk) => {
        if (!pair.frozen) client.write(chunk);
      });
      const end = () => {
        proxy.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end);
      upstream.on('close', () => {
        if (!pair.frozen) end();
      });
      client.on('error', end);
      upstream.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new FreezingProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }

  freezeOpenConnections(): void {
    for (const pair of this.pairs) pair.frozen = true;
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
