// The reason `repos add` gives when the bridge cannot list a repo's branches: git's first message, not its
// generic advice, and any other failure whole.
import { describe, expect, it } from 'vitest';
import { listingFailureReason } from './repo-probe.js';

describe('listingFailureReason', () => {
  it.each([
    [
      `could not list branches for repo "bad": fatal: 'not-a-url' does not appear to be a git repository fatal: Could not read from remote repository.  Please make sure you have the correct access rights and the repository exists.`,
      `'not-a-url' does not appear to be a git repository`,
    ],
    [
      `could not list branches for repo "bad": fatal: unable to access 'https://nowhere.invalid/x.git/': Could not resolve host: nowhere.invalid`,
      `unable to access 'https://nowhere.invalid/x.git/': Could not resolve host: nowhere.invalid`,
    ],
    ['could not list branches for repo "bad": no answer within 20 s', 'no answer within 20 s'],
    ['ship "s1" is offline', 'ship "s1" is offline'],
  ])('%s', (message, reason) => {
    expect(listingFailureReason('bad', message)).toBe(reason);
  });
});
