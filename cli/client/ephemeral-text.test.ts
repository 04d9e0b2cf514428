// An ephemeral record as `svc client ls --wide` shows it: ISSUE, PR and CLEANUP cells, a blocked reason cut
// to the column.
import { describe, expect, it } from 'vitest';
import type { EphemeralWorkspace } from '../../protocol/index.js';
import { ephemeralCells, shortReason } from './ephemeral-text.js';

const watching: EphemeralWorkspace = {
  issueNumber: 12,
  branch: '12-fix',
  cleanup: 'watching',
  blockedReason: null,
  blockedAt: null,
  pullRequest: null,
};

describe('ephemeral cells', () => {
  it('shows dashes for an ordinary workspace, the issue and pull request of an ephemeral one', () => {
    expect(ephemeralCells(null)).toEqual(['-', '-', '-']);
    expect(ephemeralCells(undefined)).toEqual(['-', '-', '-']);
    expect(ephemeralCells(watching)).toEqual(['#12', '-', 'watching']);
    expect(
      ephemeralCells({
        ...watching,
        pullRequest: { number: 34, state: 'open', url: 'https://github.example/a/b/pull/34' },
      }),
    ).toEqual(['#12', '#34 open', 'watching']);
  });

  it("keeps a blocked reason short: the ship's findings without the key the row already names", () => {
    const blocked = { ...watching, cleanup: 'blocked' as const, blockedAt: '2026-01-01T00:00:00.000Z' };
    expect(
      ephemeralCells({
        ...blocked,
        blockedReason: 'workspace r/n holds work that is not on a remote: 2 stash entries',
      })[2],
    ).toBe('blocked: 2 stash entries');
    expect(
      shortReason(
        'workspace r/n holds work that is not on a remote: uncommitted changes (3 paths); 1 commit on branch 12-fix not on any remote',
      ),
    ).toBe('uncommitted changes (3 paths); 1 commit on bran…');
    expect(shortReason('ship answered\n\t500')).toBe('ship answered 500');
    expect(shortReason(null)).toBe('no reason given');
    expect(shortReason('x'.repeat(48))).toBe('x'.repeat(48));
    expect(shortReason('x'.repeat(49))).toBe(`${'x'.repeat(47)}…`);
  });
});
