// The canonical issue branch of docs/architecture.md §9: `<number>-<slug>`, ASCII only, capped at 60 without a trailing `-`.
import { describe, expect, it } from 'vitest';
import { issueBranchName, slugOf } from './issue-branch.js';

describe('issue branch names', () => {
  it.each([
    [12, 'Fix the login page', '12-fix-the-login-page'],
    [7, '  Crash on start!!  (again) ', '7-crash-on-start-again'],
    [3, 'Support C++/Rust & Go: v2.0', '3-support-c-rust-go-v2-0'],
    [41, 'Überprüfung der Änderungen', '41-berpr-fung-der-nderungen'],
    [5, '修复登录 bug 🐛 now', '5-bug-now'],
    [9, 'ALL CAPS_and_snake', '9-all-caps-and-snake'],
  ])('#%i %j → %s', (number, title, branch) => {
    expect(issueBranchName(number, title)).toBe(branch);
  });

  it('a title that slugs to nothing gives the bare number', () => {
    expect(slugOf('🚀🔥 — ✨')).toBe('');
    expect(issueBranchName(88, '🚀🔥 — ✨')).toBe('88');
    expect(issueBranchName(88, '')).toBe('88');
  });

  it('caps at 60 characters with no trailing dash, whatever the title length', () => {
    const long = issueBranchName(1234, 'word '.repeat(40));
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long).toMatch(/^1234-(word-)*word$/);
    // A cut that lands right after a separator drops it.
    const title = `${'a'.repeat(54)} bcd`; // "1234-" + 54 a's = 59, then "-" at 60
    expect(issueBranchName(1234, title)).toBe(`1234-${'a'.repeat(54)}`);
    const twoHundred = issueBranchName(5, 'x'.repeat(200));
    expect(twoHundred).toBe(`5-${'x'.repeat(58)}`);
    expect(twoHundred).toHaveLength(60);
  });
});
