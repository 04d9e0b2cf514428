// The agent as `svc client ls` and `status` show it: staleness and an awaiting agent's question.
import { describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../protocol/index.js';
import { agentCell, agentLine, staleText } from './agent-text.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const base: AgentStatus = { state: 'building', description: 'compiling', model: 'm', provider: 'p', harness: 'h' };

describe('agent text', () => {
  it('says how long a stale status has been quiet', () => {
    expect(staleText(base, NOW)).toBeNull();
    expect(staleText({ ...base, stale: true, quietSince: '2026-11-23T11:48:30Z' }, NOW)).toBe('no activity for 11 min');
    expect(staleText({ ...base, stale: true, quietSince: '2026-11-23T11:59:58Z' }, NOW)).toBe('no activity for 2 s');
    expect(staleText({ ...base, stale: true }, NOW)).toBe('no activity');
  });

  it('ls: the state, staleness, and an awaiting question unless the wide table shows it', () => {
    expect(agentCell(null)).toBe('-');
    expect(agentCell(base, { now: NOW })).toBe('building');
    expect(agentCell({ ...base, stale: true, quietSince: '2026-11-23T11:50:00Z' }, { now: NOW })).toBe(
      'building (no activity for 10 min)',
    );
    const question = `Push to main\nor open a pull request? ${'x'.repeat(80)}`;
    expect(agentCell({ ...base, state: 'awaiting', description: question }, { now: NOW })).toBe(
      `awaiting (“Push to main or open a pull request? ${'x'.repeat(22)}…”)`,
    );
    expect(agentCell({ ...base, state: 'awaiting', description: question }, { now: NOW, wide: true })).toBe('awaiting');
  });

  it('status: the whole line', () => {
    expect(agentLine(null)).toBe('-');
    expect(agentLine({ ...base, stale: true, quietSince: '2026-11-23T11:45:00Z' }, NOW)).toBe(
      'building (no activity for 15 min) compiling (p/m, h)',
    );
    expect(agentLine({ ...base, state: 'awaiting', description: 'Which port?' }, NOW)).toBe(
      'awaiting asks: Which port? (p/m, h)',
    );
  });
});
