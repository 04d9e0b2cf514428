// Who needs a human (web/src/state/attention.ts) over sequences of stream frames: each reason, its order,
// since when, a sync's lower bound, dismissals, and what counts as newly awaiting (notifications).
import { describe, expect, it } from 'vitest';
import type { AgentState } from '../../protocol/agent.js';
import type { BridgeWorkspaceEvent, BridgeWorkspaceSummary } from '../../protocol/bridge.js';
import {
  attentionEntries,
  newlyAwaiting,
  trackHistory,
  withBridgeHistory,
  type AgentHistories,
} from '../../web/src/state/attention.js';
import { applyEvent, EMPTY_LIST, type WorkspaceList } from '../../web/src/state/workspace-list.js';

const workspace = (
  name: string,
  state: AgentState | null,
  extra: Partial<BridgeWorkspaceSummary> = {},
  stale?: string,
): BridgeWorkspaceSummary => ({
  repoName: 'app',
  name,
  branch: 'main',
  active: true,
  ship: 's1',
  ephemeral: null,
  agent: state
    ? {
        state,
        description: `${name} ${state}`,
        model: 'm',
        provider: 'p',
        harness: 'h',
        ...(stale ? { stale: true, quietSince: stale } : {}),
      }
    : null,
  ...extra,
});

function replay(events: BridgeWorkspaceEvent[]): { list: WorkspaceList; histories: AgentHistories } {
  let list = EMPTY_LIST;
  let histories: AgentHistories = new Map();
  for (const event of events) {
    list = applyEvent(list, event);
    histories = trackHistory(histories, event);
  }
  return { list, histories };
}

const sync = (at: string, ...workspaces: BridgeWorkspaceSummary[]): BridgeWorkspaceEvent => ({
  type: 'sync',
  at,
  workspaces,
});
const change = (
  at: string,
  value: BridgeWorkspaceSummary,
  type: BridgeWorkspaceEvent['type'] = 'workspace.agent_status_changed',
  reason?: 'session-ended',
) => ({ type, at, workspace: value, ...(reason ? { reason } : {}) }) as BridgeWorkspaceEvent;

describe('attention entries', () => {
  it('lists questions first, then stale, ended and finished agents, oldest first within each, and nobody else', () => {
    const { list, histories } = replay([
      sync(
        '2026-01-01T10:00:00Z',
        workspace('q-late', 'building'),
        workspace('q-early', 'planning'),
        workspace('busy', 'building'),
        workspace('done', 'verifying'),
        workspace('idle', 'idle'),
        workspace('gone', 'building'),
        workspace('st', 'building'),
      ),
      change('2026-01-01T10:05:00Z', workspace('q-early', 'awaiting')),
      change('2026-01-01T10:07:00Z', workspace('q-late', 'awaiting')),
      change('2026-01-01T10:08:00Z', workspace('done', 'idle')),
      change(
        '2026-01-01T10:09:00Z',
        workspace('gone', null, { active: false }),
        'workspace.deactivated',
        'session-ended',
      ),
      change('2026-01-01T10:10:00Z', workspace('st', 'building', {}, '2026-01-01T09:50:00Z')),
    ]);
    const entries = attentionEntries(list, histories);
    expect(entries.map((entry) => [entry.key, entry.reason, entry.since, entry.atLeast])).toEqual([
      ['app/q-early', 'awaiting', '2026-01-01T10:05:00Z', false],
      ['app/q-late', 'awaiting', '2026-01-01T10:07:00Z', false],
      ['app/st', 'stale', '2026-01-01T09:50:00Z', false],
      ['app/gone', 'exited', '2026-01-01T10:09:00Z', false],
      ['app/done', 'finished', '2026-01-01T10:08:00Z', false],
    ]);
  });

  it('an agent already awaiting in the first sync waited at least since then; a deactivate someone asked for is no exit', () => {
    const { list, histories } = replay([
      sync('2026-01-01T10:00:00Z', workspace('asks', 'awaiting'), workspace('stopped', 'building')),
      change('2026-01-01T10:01:00Z', workspace('stopped', null, { active: false }), 'workspace.deactivated'),
    ]);
    expect(attentionEntries(list, histories).map((entry) => [entry.key, entry.since, entry.atLeast])).toEqual([
      ['app/asks', '2026-01-01T10:00:00Z', true],
    ]);
  });

  it('a later sync keeps what the stream showed; activating again ends an exit; an answer that moves the agent ends the question', () => {
    const { list, histories } = replay([
      sync('2026-01-01T10:00:00Z', workspace('a', 'building'), workspace('b', 'building')),
      change('2026-01-01T10:01:00Z', workspace('a', 'awaiting')),
      change('2026-01-01T10:02:00Z', workspace('b', null, { active: false }), 'workspace.deactivated', 'session-ended'),
      sync('2026-01-01T10:03:00Z', workspace('a', 'awaiting'), workspace('b', null, { active: false })),
    ]);
    expect(attentionEntries(list, histories).map((entry) => [entry.key, entry.reason, entry.since])).toEqual([
      ['app/a', 'awaiting', '2026-01-01T10:01:00Z'],
      ['app/b', 'exited', '2026-01-01T10:02:00Z'],
    ]);
    const after = replay([
      sync('2026-01-01T10:00:00Z', workspace('a', 'building'), workspace('b', 'building')),
      change('2026-01-01T10:01:00Z', workspace('a', 'awaiting')),
      change('2026-01-01T10:02:00Z', workspace('b', null, { active: false }), 'workspace.deactivated', 'session-ended'),
      change('2026-01-01T10:04:00Z', workspace('a', 'building')),
      change('2026-01-01T10:05:00Z', workspace('b', null), 'workspace.activated'),
    ]);
    expect(attentionEntries(after.list, after.histories)).toEqual([]);
  });

  it('a dismissed finished turn stays away until the next one', () => {
    const first = replay([
      sync('2026-01-01T10:00:00Z', workspace('d', 'building')),
      change('2026-01-01T10:01:00Z', workspace('d', 'idle')),
    ]);
    const dismissed = new Map([['app/d', '2026-01-01T10:01:00Z']]);
    expect(attentionEntries(first.list, first.histories, dismissed)).toEqual([]);
    const again = replay([
      sync('2026-01-01T10:00:00Z', workspace('d', 'building')),
      change('2026-01-01T10:01:00Z', workspace('d', 'idle')),
      change('2026-01-01T10:02:00Z', workspace('d', 'building')),
      change('2026-01-01T10:03:00Z', workspace('d', 'idle')),
    ]);
    expect(attentionEntries(again.list, again.histories, dismissed).map((entry) => entry.since)).toEqual([
      '2026-01-01T10:03:00Z',
    ]);
    // A question cannot be dismissed: it leaves when the agent moves on.
    const asks = replay([
      sync('2026-01-01T10:00:00Z', workspace('q', 'building')),
      change('2026-01-01T10:01:00Z', workspace('q', 'awaiting')),
    ]);
    expect(attentionEntries(asks.list, asks.histories, new Map([['app/q', '2026-01-01T10:01:00Z']]))).toHaveLength(1);
  });

  it('newly awaiting: a change into awaiting, never a sync or a repeat', () => {
    const { list } = replay([sync('2026-01-01T10:00:00Z', workspace('a', 'building'), workspace('b', 'awaiting'))]);
    expect(newlyAwaiting(list, change('t', workspace('a', 'awaiting')))).toEqual(['app/a']);
    expect(newlyAwaiting(list, change('t', workspace('b', 'awaiting')))).toEqual([]);
    expect(newlyAwaiting(list, sync('t', workspace('a', 'awaiting')))).toEqual([]);
    expect(newlyAwaiting(list, change('t', workspace('a', 'verifying')))).toEqual([]);
  });

  it("takes the bridge's memory where the page has only its first sight of an agent in the same state", () => {
    const { histories } = replay([
      sync(
        '2026-01-01T10:00:00Z',
        workspace('done', 'idle'),
        workspace('moved', 'building'),
        workspace('seen', 'building'),
      ),
      change('2026-01-01T10:01:00Z', workspace('seen', 'awaiting')),
    ]);
    const remembered = { seenChange: true, finishedWork: true, sessionEnded: false, since: '2026-01-01T09:00:00Z' };
    const merged = withBridgeHistory(histories, [
      { repoName: 'app', name: 'done', state: 'idle', ...remembered },
      { repoName: 'app', name: 'moved', state: 'idle', ...remembered },
      { repoName: 'app', name: 'seen', state: 'awaiting', ...remembered },
      { repoName: 'app', name: 'unknown', state: 'idle', ...remembered },
    ]);
    expect(merged.get('app/done')).toEqual({ state: 'idle', ...remembered });
    expect(merged.get('app/moved')).toBe(histories.get('app/moved'));
    expect(merged.get('app/seen')).toBe(histories.get('app/seen'));
    expect(merged.has('app/unknown')).toBe(false);
    expect(withBridgeHistory(histories, [])).toBe(histories);
  });
});
