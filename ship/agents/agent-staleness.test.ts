// The staleness core as a table, on an injected clock: which statuses go stale and which come back.
import { describe, expect, it } from 'vitest';
import type { AgentState } from '../../protocol/index.js';
import { AgentStatusStore } from './agent-status.js';
import {
  AgentStaleness,
  agentActivityPollMs,
  agentStaleMs,
  needsActivity,
  type WatchedStatus,
} from './agent-staleness.js';

const STALE_MS = 10 * 60_000;
const T0 = 1_800_000_000_000; // a whole second: tmux marks are whole seconds

const status = (state: AgentState, reportedAt: number, stale = false): WatchedStatus => ({
  key: 'r/w',
  state,
  stale,
  reportedAt,
});
const marks = (seconds?: number) => new Map(seconds === undefined ? [] : [['r/w', seconds]]);

describe('AgentStaleness', () => {
  // Each row: one status, the tmux mark before (first poll at T0) and at the decision poll, the decision's time.
  const rows: Array<{
    what: string;
    state: AgentState;
    stale?: boolean;
    reportedAt?: number;
    first?: number;
    mark?: number;
    at: number;
    expect: 'stale' | 'fresh' | 'none';
  }> = [
    { what: 'building, quiet past the stale time', state: 'building', at: T0 + STALE_MS, expect: 'stale' },
    { what: 'planning, quiet past the stale time', state: 'planning', at: T0 + STALE_MS, expect: 'stale' },
    { what: 'verifying, quiet past the stale time', state: 'verifying', at: T0 + STALE_MS, expect: 'stale' },
    { what: 'building, just short of the stale time', state: 'building', at: T0 + STALE_MS - 1, expect: 'none' },
    { what: 'idle never goes stale', state: 'idle', at: T0 + 10 * STALE_MS, expect: 'none' },
    { what: 'awaiting never goes stale', state: 'awaiting', at: T0 + 10 * STALE_MS, expect: 'none' },
    {
      what: 'a recent report keeps it fresh',
      state: 'building',
      reportedAt: T0 + 5 * 60_000,
      at: T0 + STALE_MS,
      expect: 'none',
    },
    {
      what: 'output seen between polls keeps it fresh',
      state: 'building',
      first: T0 / 1000,
      mark: T0 / 1000 + 60,
      at: T0 + STALE_MS,
      expect: 'none',
    },
    {
      what: 'an unchanged mark is no output',
      state: 'building',
      first: T0 / 1000,
      mark: T0 / 1000,
      at: T0 + STALE_MS,
      expect: 'stale',
    },
    {
      what: 'already stale and still quiet: no news',
      state: 'building',
      stale: true,
      first: T0 / 1000,
      mark: T0 / 1000,
      at: T0 + STALE_MS,
      expect: 'none',
    },
    {
      what: 'stale, then output: fresh',
      state: 'building',
      stale: true,
      first: T0 / 1000,
      mark: T0 / 1000 + 1,
      at: T0 + STALE_MS,
      expect: 'fresh',
    },
    {
      what: 'stale, then a report: fresh',
      state: 'building',
      stale: true,
      reportedAt: T0 + STALE_MS - 1000,
      at: T0 + STALE_MS,
      expect: 'fresh',
    },
    {
      what: 'stale but now idle (the mark of an older decision): fresh',
      state: 'idle',
      stale: true,
      at: T0 + STALE_MS,
      expect: 'fresh',
    },
  ];

  it.each(rows)('$what → $expect', (row) => {
    const core = new AgentStaleness(STALE_MS);
    const reportedAt = row.reportedAt ?? T0;
    const entry = status(row.state, Math.min(reportedAt, T0), row.stale);
    core.decide([entry], marks(row.first), T0); // the first poll, at T0
    const decision = core.decide([{ ...entry, reportedAt }], marks(row.mark ?? row.first), row.at);
    const got = decision.stale.length > 0 ? 'stale' : decision.fresh.length > 0 ? 'fresh' : 'none';
    expect(got).toBe(row.expect);
  });

  it('a mark seen first counts as output at its second; the stale mark carries the last sign of life', () => {
    const core = new AgentStaleness(STALE_MS);
    const entry = status('building', T0 - 60 * 60_000);
    expect(core.decide([entry], marks(T0 / 1000), T0 + STALE_MS - 1)).toEqual({ stale: [], fresh: [] });
    expect(core.decide([entry], marks(T0 / 1000), T0 + STALE_MS)).toEqual({
      stale: [{ key: 'r/w', since: T0 }],
      fresh: [],
    });
  });

  it('output counts when the poll sees it, not at its whole-second mark', () => {
    const core = new AgentStaleness(300);
    const entry = status('building', T0);
    core.decide([entry], marks(T0 / 1000), T0 + 100);
    // Output at T0 + 900 ms is still mark T0/1000 + 0 … at T0 + 1100 it reads as the next second.
    expect(core.decide([entry], marks(T0 / 1000 + 1), T0 + 1100).stale).toEqual([]);
    expect(core.decide([entry], marks(T0 / 1000 + 1), T0 + 1399).stale).toEqual([]);
    expect(core.decide([entry], marks(T0 / 1000 + 1), T0 + 1400).stale).toEqual([{ key: 'r/w', since: T0 + 1100 }]);
  });

  it('without a session mark, only the report counts', () => {
    const core = new AgentStaleness(STALE_MS);
    expect(core.decide([status('building', T0)], marks(), T0 + STALE_MS).stale).toEqual([{ key: 'r/w', since: T0 }]);
  });

  it('needsActivity: only while some status works or is stale', () => {
    expect(needsActivity([])).toBe(false);
    expect(needsActivity([status('idle', T0), status('awaiting', T0)])).toBe(false);
    expect(needsActivity([status('idle', T0, true)])).toBe(true);
    expect(needsActivity([status('idle', T0), status('verifying', T0)])).toBe(true);
  });

  it('the stale time: option, else SVC_AGENT_STALE_MS, else 10 minutes; the poll follows it', () => {
    expect(agentStaleMs(5000, { SVC_AGENT_STALE_MS: '7000' })).toBe(5000);
    expect(agentStaleMs(undefined, { SVC_AGENT_STALE_MS: '7000' })).toBe(7000);
    expect(agentStaleMs(undefined, { SVC_AGENT_STALE_MS: 'soon' })).toBe(STALE_MS);
    expect(agentStaleMs(undefined, { SVC_AGENT_STALE_MS: '0' })).toBe(STALE_MS);
    expect(agentStaleMs(undefined, {})).toBe(STALE_MS);
    expect(agentActivityPollMs(STALE_MS)).toBe(30_000);
    expect(agentActivityPollMs(300)).toBe(100);
    expect(agentActivityPollMs(1)).toBe(50);
  });
});

describe('AgentStatusStore stale mark', () => {
  it('a report drops it; a decision made on an older report changes nothing', () => {
    let now = T0;
    const store = new AgentStatusStore(() => now);
    store.init('r/w', { model: 'm', provider: 'p', harness: 'h' });
    store.update('r/w', { state: 'building', description: 'x' });
    const report = store.lastReport('r/w')!;
    expect(report.at).toBe(T0);
    now += 1000;
    expect(store.setStale('r/w', true, report.sequence, new Date(T0))).toMatchObject({
      state: 'building',
      stale: true,
      quietSince: new Date(T0).toISOString(),
    });
    expect(store.setStale('r/w', true, report.sequence)).toBeNull(); // no change, no event
    const updated = store.update('r/w', { state: 'building', description: 'y' })!;
    expect(updated.stale).toBeUndefined();
    expect(updated.quietSince).toBeUndefined();
    expect(store.lastReport('r/w')!.at).toBe(T0 + 1000);
    expect(store.setStale('r/w', true, report.sequence)).toBeNull(); // out of date
    const latest = store.lastReport('r/w')!.sequence;
    expect(store.setStale('r/w', true, latest)?.stale).toBe(true);
    expect(store.setStale('r/w', false, latest)).toEqual({
      state: 'building',
      description: 'y',
      model: 'm',
      provider: 'p',
      harness: 'h',
    });
  });
});
