// The GUI's client routes (web/src/lib/routes.ts): every identifier the spec allows round-trips through a
// path, and unknown paths are not-found.
import { describe, expect, it } from 'vitest';
import { parseRoute, pathOf, type Route } from '../../web/src/lib/routes.js';

describe('client routes', () => {
  it('round-trips workspace keys with any identifier characters', () => {
    for (const [repo, name] of [
      ['r', 'n'],
      ['my repo', '<img src=x onerror=alert(1)>'],
      ['a?b#c', '%2F%'],
      ['café', '\u202Eevil'],
      ['x.y', 'a b'],
    ] as const) {
      for (const page of ['workspace', 'terminal'] as const) {
        const route: Route = { page, repo, name };
        expect(parseRoute(new URL(pathOf(route), 'http://h').pathname)).toEqual(route);
      }
    }
  });

  it('maps the fixed pages and refuses unknown paths', () => {
    for (const page of [
      'inbox',
      'workspaces',
      'ships',
      'repos',
      'resources',
      'armory',
      'users',
      'account',
      'new-workspace',
    ] as const) {
      expect(parseRoute(pathOf({ page }))).toEqual({ page });
    }
    expect(parseRoute('/ui/')).toEqual({ page: 'inbox' });
    expect(parseRoute('/ui')).toEqual({ page: 'inbox' });
    expect(parseRoute('/ui/workspaces')).toEqual({ page: 'workspaces' });
    expect(parseRoute('/ui/nope')).toEqual({ page: 'not-found' });
    expect(parseRoute('/ui/workspaces/r/n/extra')).toEqual({ page: 'not-found' });
    expect(parseRoute('/ui/workspaces/%E0%A4%A/n')).toEqual({ page: 'not-found' });
    expect(parseRoute('/elsewhere')).toEqual({ page: 'not-found' });
  });
});
