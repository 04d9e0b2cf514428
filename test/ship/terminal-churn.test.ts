// Terminal resources under churn and over real time: no pty, emulator, timer or tmux client outlives its
// connection across 100 connect/disconnect cycles; the ack timeout at its real 5 s; hostile output in one
// workspace never stalls another's terminal.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { shipFixture } from '../helpers/fixture.js';
import { connectTerminal, terminalUrl } from '../helpers/terminal.js';
import { settles, until } from '../helpers/poll.js';

const fx = shipFixture({}, { repo: 'c', names: ['churn', 'slow', 'hostile', 'victim'] });

const pipeProcesses = () =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('svc-pipes-');
      } catch {
        return false;
      }
    });
const resources = () =>
  process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap' && kind !== 'Timeout').length;
const tmuxClients = async () =>
  (await fx.ship.ship.tmux.run(['list-clients', '-F', '#{client_control_mode} #{session_name}'])).stdout
    .split('\n')
    .filter((line) => line.startsWith('0 ')).length;

describe('terminal churn', () => {
  it('100 connect/disconnect cycles leave no pty, emulator, guard, timer or tmux client behind', async () => {
    const url = terminalUrl(fx.ship.url, 'c', 'churn');
    const warm = await connectTerminal(url);
    await warm.waitForFrames(1);
    await warm.close();
    // Let the warm-up terminal's resources go before the baseline is taken (no signal for a settled process table).
    await new Promise((r) => setTimeout(r, 200));
    const before = resources();
    for (let i = 0; i < 100; i++) {
      const client = await connectTerminal(url, { cols: 40 + (i % 40), rows: 10 + (i % 10) });
      if (i % 2 === 0) await client.waitForFrames(1);
      if (i % 10 === 0) client.input('echo x\r');
      await client.close();
    }
    const released = async () => fx.ship.ship.terminals.size === 0 && (await tmuxClients()) === 0;
    await settles(until(released, 'every terminal and tmux client gone', 5_000, 100));
    expect(fx.ship.ship.terminals.size).toBe(0);
    expect(await tmuxClients()).toBe(0);
    // No pane is still piped, and no pipe process is left.
    await settles(until(() => pipeProcesses().length === 0, 'no pipe process left', 5_000, 100));
    expect(pipeProcesses()).toEqual([]);
    const piped = await fx.ship.ship.tmux.run(['list-panes', '-a', '-F', '#{pane_pipe}']);
    expect(piped.stdout.split('\n').filter((flag) => flag === '1')).toEqual([]);
    // The same settling before the count is compared with the baseline.
    await new Promise((r) => setTimeout(r, 200));
    expect(resources()).toBeLessThanOrEqual(before + 2);
    // The guard is free: a new connection attaches normally.
    const after = await connectTerminal(url);
    await after.waitForFrames(1);
    expect(after.frames[0]!.type).toBe('grid');
    await after.close();
  }, 120_000);

  it('a client that never acks gets a full snapshot after the real 5 s ack timeout', async () => {
    const client = await connectTerminal(terminalUrl(fx.ship.url, 'c', 'slow'), { autoAck: false });
    await client.waitForFrames(1);
    client.input('while :; do date +%N; sleep 0.05; done\r');
    await client.waitForFrames(2);
    const blockedAt = Date.now();
    await client.waitForFrames(3, 8000);
    const waited = Date.now() - blockedAt;
    expect(waited).toBeGreaterThanOrEqual(4500);
    expect(waited).toBeLessThan(7000);
    expect(client.frames[2]).toMatchObject({ type: 'grid', seq: 2 });
    client.input('\u0003');
    await client.close();
  }, 20_000);

  it("hostile escape sequences in one workspace never stall another workspace's terminal", async () => {
    const hostile = await connectTerminal(terminalUrl(fx.ship.url, 'c', 'hostile'));
    const victim = await connectTerminal(terminalUrl(fx.ship.url, 'c', 'victim'));
    await hostile.waitForFrames(1);
    await victim.until((screen) => /[$#] ?$/m.test(screen.text()));
    hostile.input(
      "for i in 1 2 3 4 5; do printf 'a\\033[100000000b\\033[1;40r\\033[100000000L\\033[2000000000b'; done; echo hostile-done\r",
    );
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const marker = `k${i}x`;
      const started = performance.now();
      victim.input(marker);
      await victim.until((screen) => screen.text().includes(marker), 5000);
      latencies.push(performance.now() - started);
    }
    await hostile.until((screen) => screen.text().includes('hostile-done'), 10_000);
    latencies.sort((a, b) => a - b);
    expect(latencies[Math.floor(latencies.length * 0.95)]).toBeLessThan(1000);
    await hostile.close();
    await victim.close();
  }, 30_000);

  it('ship shutdown closes open terminals (1001) and detaches their tmux clients, leaving the session running', async () => {
    const client = await connectTerminal(terminalUrl(fx.ship.url, 'c', 'victim'));
    await client.waitForFrames(1);
    await fx.ship.stopShipOnly();
    expect((await client.closed).code).toBe(1001);
    await settles(until(async () => (await tmuxClients()) === 0, 'no tmux client left', 2_000));
    expect(await tmuxClients()).toBe(0);
    expect(fx.ship.ship.terminals.size).toBe(0);
    expect((await fx.ship.ship.tmux.listSessions()).size).toBeGreaterThan(1);
  });
});
