import { describe, expect, it } from 'vitest';
import type { WorkspaceEvent, WorkspaceSummary } from '../../protocol/index.js';
import { OwnershipIndex, sameJson } from './ownership-index.js';

const ws = (repoName: string, name: string, branch = 'main'): WorkspaceSummary => ({
  repoName,
  name,
  branch,
  active: false,
  agent: null,
});
const event = (type: WorkspaceEvent['type'], ship: string, workspace: WorkspaceSummary): WorkspaceEvent => ({
  type,
  ship,
  at: '',
  workspace,
});

describe('ownership index', () => {
  it('claims unowned keys from a sync and reports conflicts with other owners', () => {
    const index = new OwnershipIndex();
    index.replaceView('a', [ws('r', 'one'), ws('r', 'two')]);
    expect(index.owner('r/one')).toBe('a');
    expect(index.conflicts('b', [ws('r', 'two'), ws('r', 'three')])).toEqual(['r/two']);
    expect(index.conflicts('a', [ws('r', 'two')])).toEqual([]);
  });

  it('applies events of the owner and drops events for keys another ship owns', () => {
    const index = new OwnershipIndex();
    index.replaceView('a', [ws('r', 'one')]);
    expect(index.apply('a', event('workspace.branch_changed', 'a', ws('r', 'one', 'dev')))?.branch).toBe('dev');
    expect(index.apply('b', event('workspace.activated', 'b', ws('r', 'one')))).toBeNull();
    expect(index.get('r/one')?.summary.branch).toBe('dev');
    expect(index.apply('b', event('workspace.created', 'b', ws('r', 'new')))).not.toBeNull();
    expect(index.owner('r/new')).toBe('b');
  });

  it('hands a released key to another ship reporting it: online first, then by name', () => {
    const index = new OwnershipIndex();
    index.replaceView('m', [ws('r', 'k')]);
    index.replaceView('z', [ws('r', 'k')]);
    index.replaceView('c', [ws('r', 'k')]);
    index.setOnline('z', true);
    expect(index.owner('r/k')).toBe('m');
    expect(index.apply('m', event('workspace.removed', 'm', ws('r', 'k')))).not.toBeNull();
    expect(index.owner('r/k')).toBe('z');
    index.removeShip('z');
    expect(index.owner('r/k')).toBe('c');
    index.replaceView('c', []);
    expect(index.owner('r/k')).toBeNull();
    expect(index.get('r/k')).toBeNull();
  });

  it('drops a removal from a ship that does not own the key', () => {
    const index = new OwnershipIndex();
    index.replaceView('a', [ws('r', 'k')]);
    index.replaceView('b', [ws('r', 'k')]);
    expect(index.apply('b', event('workspace.removed', 'b', ws('r', 'k')))).toBeNull();
    expect(index.owner('r/k')).toBe('a');
    index.removeShip('a');
    expect(index.owner('r/k')).toBeNull();
  });

  it('lists owned workspaces by key', () => {
    const index = new OwnershipIndex();
    index.replaceView('b', [ws('r', 'z'), ws('q', 'a')]);
    index.replaceView('a', [ws('r', 'z'), ws('r', 'b')]);
    expect(index.list().map((entry) => `${entry.ship}:${entry.summary.repoName}/${entry.summary.name}`)).toEqual([
      'b:q/a',
      'a:r/b',
      'b:r/z',
    ]);
  });

  it('reports every owner change for the audit log: claim, hand-over, and leaving the index', () => {
    const changes: Array<[string, string | null, string | null]> = [];
    const index = new OwnershipIndex((key, from, to) => changes.push([key, from, to]));
    index.replaceView('b', [ws('r', 'k')]);
    index.replaceView('a', [ws('r', 'k')]);
    index.setOnline('a', true);
    index.removeShip('b');
    index.removeShip('a');
    expect(changes).toEqual([
      ['r/k', null, 'b'],
      ['r/k', 'b', 'a'],
      ['r/k', 'a', null],
    ]);
  });

  it('keeps the order of keys as they join and leave', () => {
    const index = new OwnershipIndex();
    index.replaceView('a', [ws('r', 'm')]);
    expect(index.list().map((entry) => entry.summary.name)).toEqual(['m']);
    index.replaceView('b', [ws('r', 'z'), ws('r', 'c')]);
    expect(index.list().map((entry) => entry.summary.name)).toEqual(['c', 'm', 'z']);
    index.apply('a', event('workspace.removed', 'a', ws('r', 'm')));
    expect(index.list().map((entry) => entry.summary.name)).toEqual(['c', 'z']);
    index.apply('a', event('workspace.created', 'a', ws('r', 'd')));
    expect(index.list().map((entry) => entry.summary.name)).toEqual(['c', 'd', 'z']);
  });

  it('keeps a summary object its ship reports again unchanged, and takes a changed one', () => {
    const index = new OwnershipIndex();
    const first = ws('r', 'k');
    index.replaceView('a', [first]);
    index.replaceView('a', [ws('r', 'k')]);
    expect(index.get('r/k')?.summary).toBe(first);
    const moved = ws('r', 'k', 'dev');
    index.replaceView('a', [moved]);
    expect(index.get('r/k')?.summary).toBe(moved);
  });

  it('compares JSON values as their text would: types, key order, nesting', () => {
    expect(sameJson({ a: 1, b: { c: [1, 'x', null] } }, { a: 1, b: { c: [1, 'x', null] } })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson({ a: [1] }, { a: { 0: 1 } })).toBe(false);
    expect(sameJson({ a: '1' }, { a: 1 })).toBe(false);
  });

  it('changes the view version of a ship with every sync, event, delete and removal, and never reuses one', () => {
    const index = new OwnershipIndex();
    const seen = new Set<number>([index.viewVersion('a')]);
    const expectNew = () => {
      const version = index.viewVersion('a');
      expect(seen.has(version)).toBe(false);
      seen.add(version);
    };
    index.replaceView('a', [ws('r', 'k')]);
    expectNew();
    index.replaceView('b', [ws('r', 'z')]);
    expect(seen.has(index.viewVersion('a'))).toBe(true);
    index.apply('a', event('workspace.branch_changed', 'a', ws('r', 'k', 'dev')));
    expectNew();
    index.deleted('a', 'r/k');
    expectNew();
    index.removeShip('a');
    expectNew();
    index.replaceView('a', []);
    expectNew();
  });
});
