// The insecure-mode banner: printed at once, repeated on its interval for as long as the bridge runs, and
// silent once stopped.
import { describe, expect, it } from 'vitest';
import { bannerText, startInsecureBanner } from './insecure-banner.js';

describe('insecure banner', () => {
  it('repeats until stopped', async () => {
    const written: string[] = [];
    const stop = startInsecureBanner('http://localhost:4800', { write: (text) => written.push(text), intervalMs: 20 });
    expect(written).toEqual([bannerText('http://localhost:4800')]);
    // A window, not a condition: about five intervals, for the banner to repeat.
    await new Promise((resolve) => setTimeout(resolve, 110));
    stop();
    const count = written.length;
    expect(count).toBeGreaterThanOrEqual(3);
    // A window, not a condition: after stop, nothing more may be written.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(written.length).toBe(count);
    expect(written[0]).toContain('AUTHENTICATION IS DISABLED');
    expect(written[0]).toContain('http://localhost:4800');
  });
});
