// What the command palette offers (issue #31): every page the viewer may open, every action on every
// workspace in the live list (open, review, answer, terminal, activate or deactivate, switch branch,
// delete), the shortcuts overlay and signing out. Pure: built from the viewer and the list, matched by
// words; the palette (command-palette.tsx) runs them.
import type { BridgeWorkspaceSummary } from '../../../protocol/bridge.js';
import type { Route } from '../lib/routes.js';

/** Where a workspace page should put focus when opened from the palette (its URL's fragment). */
export type WorkspaceFocus = 'switch-branch' | 'answer';

export type CommandEffect =
  | { kind: 'go'; route: Route; focus?: WorkspaceFocus }
  | { kind: 'activate' | 'deactivate' | 'delete'; repo: string; name: string }
  | { kind: 'shortcuts' }
  | { kind: 'sign-out' };

export interface Command {
  /** Unique: the option's id and its React key. */
  id: string;
  label: string;
  /** Grouping shown beside the label: "Page", "Workspace", "App". */
  group: string;
  effect: CommandEffect;
}

const PAGES: { label: string; route: Route; adminOnly?: boolean }[] = [
  { label: 'Inbox', route: { page: 'inbox' } },
  { label: 'Workspaces', route: { page: 'workspaces' } },
  { label: 'New workspace', route: { page: 'new-workspace' } },
  { label: 'Ships', route: { page: 'ships' } },
  { label: 'Repos', route: { page: 'repos' } },
  { label: 'Resources', route: { page: 'resources' } },
  { label: 'Armory', route: { page: 'armory' } },
  { label: 'Users', route: { page: 'users' }, adminOnly: true },
  { label: 'Account', route: { page: 'account' } },
];

export function buildCommands(options: {
  isAdmin: boolean;
  authRequired: boolean;
  workspaces: Iterable<BridgeWorkspaceSummary>;
}): Command[] {
  const commands: Command[] = PAGES.filter((page) => !page.adminOnly || options.isAdmin).map((page) => ({
    id: `page:${page.route.page}`,
    label: `Go to ${page.label}`,
    group: 'Page',
    effect: { kind: 'go', route: page.route },
  }));
  for (const workspace of options.workspaces) {
    const repo = workspace.repoName;
    const name = workspace.name;
    const key = `${repo}/${name}`;
    const at = (verb: string) => `workspace:${verb}:${key}`;
    const page: Route = { page: 'workspace', repo, name };
    commands.push({ id: at('open'), label: `Open ${key}`, group: 'Workspace', effect: { kind: 'go', route: page } });
    if (workspace.active) {
      commands.push({
        id: at('terminal'),
        label: `Terminal of ${key}`,
        group: 'Workspace',
        effect: { kind: 'go', route: { page: 'terminal', repo, name } },
      });
      if (workspace.agent)
        commands.push({
          id: at('answer'),
          label: `Answer the agent of ${key}`,
          group: 'Workspace',
          effect: { kind: 'go', route: page, focus: 'answer' },
        });
      commands.push({
        id: at('deactivate'),
        label: `Deactivate ${key}`,
        group: 'Workspace',
        effect: { kind: 'deactivate', repo, name },
      });
    } else {
      commands.push({
        id: at('activate'),
        label: `Activate ${key}`,
        group: 'Workspace',
        effect: { kind: 'activate', repo, name },
      });
    }
    commands.push({
      id: at('branch'),
      label: `Switch branch of ${key}`,
      group: 'Workspace',
      effect: { kind: 'go', route: page, focus: 'switch-branch' },
    });
    commands.push({
      id: at('delete'),
      label: `Delete ${key}`,
      group: 'Workspace',
      effect: { kind: 'delete', repo, name },
    });
  }
  commands.push({ id: 'app:shortcuts', label: 'Show keyboard shortcuts', group: 'App', effect: { kind: 'shortcuts' } });
  if (options.authRequired)
    commands.push({ id: 'app:sign-out', label: 'Sign out', group: 'App', effect: { kind: 'sign-out' } });
  return commands;
}

/** The commands whose label holds every word of `query` (any order, any case), in their order. */
export function matchCommands(commands: readonly Command[], query: string): Command[] {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  if (words.length === 0) return [...commands];
  return commands.filter((command) => {
    const label = command.label.toLowerCase();
    return words.every((word) => label.includes(word));
  });
}
