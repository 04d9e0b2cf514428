// The live list's reducer (web/src/state/workspace-list.ts): sync replaces, events upsert, removed drops,
// filters, and frames that are not bridge events are ignored.
import { describe, expect, it } from 'vitest';
import type { BridgeWorkspaceSummary } from '../../protocol/bridge.js';
import {
  applyEvent,
  EMPTY_LIST,
  filterWorkspaces,
  keyOf,
  parseEvent,
  type WorkspaceList,
} from '../../web/src/state/workspace-list.js';

const ws = (repoName: string, name: string, extra: Partial<BridgeWorkspaceSummary> = {}): BridgeWorkspaceSummary => ({
  repoName,
  name,
  branch: 'main',
  active: false,
  agent: null,
  ship: 'alpha',
  ephemeral: null,
  ...extra,
});
const at = '2026-01-01T00:00:00.000Z';
const keys = (list: WorkspaceList) => [...list.byKey.keys()];

describe('the workspace list reducer', () => {
  it('starts unsynced, and a sync replaces everything it held', () => {
    expect(EMPTY_LIST.synced).toBe(false);
    const first = applyEvent(EMPTY_LIST, { type: 'sync', at, workspaces: [ws('r', 'a'), ws('r', 'b')] });
    expect(first.synced).toBe(true);
    expect(keys(first)).toEqual(['r/a', 'r/b']);
    const second = applyEvent(first, { type: 'sync', at, workspaces: [ws('q', 'c')] });
    expect(keys(second)).toEqual(['q/c']);
  });

  it('upserts created, activated, branch and agent changes, and drops removed', () => {
    let list = applyEvent(EMPTY_LIST, { type: 'sync', at, workspaces: [ws('r', 'a')] });
    list = applyEvent(list, { type: 'workspace.created', at, workspace: ws('r', 'b') });
    list = applyEvent(list, { type: 'workspace.activated', at, workspace: ws('r', 'a', { active: true }) });
    list = applyEvent(list, { type: 'workspace.branch_changed', at, workspace: ws('r', 'b', { branch: 'feature' }) });
    const agent = { state: 'building' as const, description: 'compiling', model: 'm', provider: 'p', harness: 'h' };
    list = applyEvent(list, {
      type: 'workspace.agent_status_changed',
      at,
      workspace: ws('r', 'a', { active: true, agent }),
    });
    expect(list.byKey.get('r/a')).toMatchObject({ active: true, agent });
    expect(list.byKey.get('r/b')?.branch).toBe('feature');
    const before = list;
    list = applyEvent(list, { type: 'workspace.removed', at, workspace: ws('r', 'a', { branch: '' }) });
    expect(keys(list)).toEqual(['r/b']);
    expect(keys(before)).toEqual(['r/a', 'r/b']);
  });

  it('keys by repo and name (identifiers hold no /), so NFC and NFD spellings stay apart', () => {
    const list = applyEvent(EMPTY_LIST, {
      type: 'sync',
      at,
      workspaces: [ws('café', 'x'), ws('cafe\u0301', 'x'), ws('café', 'y')],
    });
    expect(list.byKey.size).toBe(3);
    expect(keyOf(ws('café', 'x'))).not.toBe(keyOf(ws('cafe\u0301', 'x')));
  });

  it('filters by activity and by text in repo, name, ship, branch or agent description, sorted', () => {
    const list = applyEvent(EMPTY_LIST, {
      type: 'sync',
      at,
      workspaces: [
        ws('zeta', 'one', { active: true }),
        ws('alpha', 'two', { ship: 'Bravo' }),
        ws('alpha', 'one', { branch: 'fix-login' }),
        ws('beta', 'x', {
          active: true,
          agent: { state: 'idle', description: 'Waiting for REVIEW', model: '', provider: '', harness: '' },
        }),
      ],
    });
    const names = (filter: Parameters<typeof filterWorkspaces>[1]) => filterWorkspaces(list, filter).map(keyOf);
    expect(names({ activity: 'all', text: '' })).toEqual(['alpha/one', 'alpha/two', 'beta/x', 'zeta/one']);
    expect(names({ activity: 'active', text: '' })).toEqual(['beta/x', 'zeta/one']);
    expect(names({ activity: 'inactive', text: '' })).toEqual(['alpha/one', 'alpha/two']);
    expect(names({ activity: 'all', text: 'bravo' })).toEqual(['alpha/two']);
    expect(names({ activity: 'all', text: ' LOGIN ' })).toEqual(['alpha/one']);
    expect(names({ activity: 'active', text: 'review' })).toEqual(['beta/x']);
    expect(names({ activity: 'inactive', text: 'review' })).toEqual([]);
  });

  it('parses bridge frames and ignores anything else', () => {
    expect(parseEvent(JSON.stringify({ type: 'sync', at, workspaces: [] }))).toEqual({
      type: 'sync',
      at,
      workspaces: [],
    });
    expect(parseEvent(JSON.stringify({ type: 'workspace.created', at, workspace: ws('r', 'a') }))?.type).toBe(
      'workspace.created',
    );
    for (const junk of [
      'not json',
      '42',
      'null',
      JSON.stringify({ type: 'sync' }),
      JSON.stringify({ type: 'workspace.created' }),
      JSON.stringify({ type: 'other', workspace: {} }),
    ]) {
      expect(parseEvent(junk)).toBeNull();
    }
    expect(parseEvent(new ArrayBuffer(2))).toBeNull();
  });
});
