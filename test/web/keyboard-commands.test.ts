// The command palette's commands (web/src/keyboard/commands.ts): every page the viewer may open, every
// action on each workspace (by its state), and word matching.
import { describe, expect, it } from 'vitest';
import type { BridgeWorkspaceSummary } from '../../protocol/bridge.js';
import { buildCommands, matchCommands } from '../../web/src/keyboard/commands.js';

const workspace = (name: string, active: boolean, agent = false) =>
  ({
    repoName: 'demo',
    name,
    ship: 's',
    branch: 'main',
    active,
    agent: agent ? { state: 'awaiting' } : null,
    ephemeral: null,
  }) as unknown as BridgeWorkspaceSummary;

describe('palette commands', () => {
  it('offers every page to an admin, and Users to no member', () => {
    const pages = (isAdmin: boolean) =>
      buildCommands({ isAdmin, authRequired: true, workspaces: [] })
        .filter((c) => c.group === 'Page')
        .map((c) => c.label);
    expect(pages(true)).toEqual([
      'Go to Inbox',
      'Go to Workspaces',
      'Go to New workspace',
      'Go to Ships',
      'Go to Repos',
      'Go to Resources',
      'Go to Armory',
      'Go to Users',
      'Go to Account',
    ]);
    expect(pages(false)).not.toContain('Go to Users');
  });

  it('offers each workspace the actions its state allows', () => {
    const labels = buildCommands({
      isAdmin: false,
      authRequired: false,
      workspaces: [workspace('a', true, true), workspace('b', false)],
    }).map((c) => c.label);
    expect(labels.filter((label) => label.includes('demo/a'))).toEqual([
      'Open demo/a',
      'Terminal of demo/a',
      'Answer the agent of demo/a',
      'Deactivate demo/a',
      'Switch branch of demo/a',
      'Delete demo/a',
    ]);
    expect(labels.filter((label) => label.includes('demo/b'))).toEqual([
      'Open demo/b',
      'Activate demo/b',
      'Switch branch of demo/b',
      'Delete demo/b',
    ]);
    expect(labels).toContain('Show keyboard shortcuts');
    expect(labels).not.toContain('Sign out');
  });

  it('matches every word, in any order and case', () => {
    const commands = buildCommands({
      isAdmin: true,
      authRequired: true,
      workspaces: [workspace('alpha', false), workspace('beta', true)],
    });
    expect(matchCommands(commands, 'DEMO/ALPHA activate').map((c) => c.label)).toEqual(['Activate demo/alpha']);
    expect(matchCommands(commands, 'ships go').map((c) => c.id)).toEqual(['page:ships']);
    expect(matchCommands(commands, '  ')).toHaveLength(commands.length);
    expect(matchCommands(commands, 'nothing-like-this')).toEqual([]);
  });
});
