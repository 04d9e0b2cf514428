import { describe, expect, it } from 'vitest';
import { checkReadiness, singleFlightReadiness, type ReadinessCheck } from './probes.js';

const passing = (name: ReadinessCheck['name'], ran: string[]): ReadinessCheck => ({
  name,
  run: async () => void ran.push(name),
});
const failing = (name: ReadinessCheck['name'], message: string): ReadinessCheck => ({
  name,
  run: async () => Promise.reject(new Error(message)),
});

describe('checkReadiness', () => {
  it('is ok when every check passes, running them in order', async () => {
    const ran: string[] = [];
    expect(await checkReadiness([passing('store', ran), passing('migrations', ran)])).toEqual({ ok: true });
    expect(ran).toEqual(['store', 'migrations']);
  });

  it('names the first check that fails, with its message, and runs none after it', async () => {
    const ran: string[] = [];
    expect(
      await checkReadiness([passing('tmux', ran), failing('fleet-directory', 'read-only'), passing('store', ran)]),
    ).toEqual({
      ok: false,
      failing: 'fleet-directory',
      error: 'read-only',
    });
    expect(ran).toEqual(['tmux']);
  });

  it('fails a check that does not answer within the deadline', async () => {
    const hung: ReadinessCheck = { name: 'store', run: () => new Promise(() => undefined) };
    expect(await checkReadiness([hung], 20)).toEqual({ ok: false, failing: 'store', error: 'no answer within 20 ms' });
  });
});

describe('singleFlightReadiness', () => {
  it('shares one run between probes that arrive while it runs, and runs again afterwards', async () => {
    let runs = 0;
    let release!: () => void;
    const check: ReadinessCheck = {
      name: 'store',
      run: () => {
        runs++;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    };
    const probe = singleFlightReadiness([check]);
    const [first, second] = [probe(), probe()];
    release();
    expect(await Promise.all([first, second])).toEqual([{ ok: true }, { ok: true }]);
    expect(runs).toBe(1);
    const third = probe();
    release();
    await third;
    expect(runs).toBe(2);
  });
});
