// The workspace verbs of `svc client` (docs/cli.md): ls, status, create, branch, activate, deactivate, send, rm
// (its own module, rm-command.ts), diff. Through the bridge by default; with `--url` straight to one ship.
// Tables for people, `--json` for the raw API body.
import type { Command } from 'commander';
import type { BranchOutcome, BridgeWorkspaceStatus, BridgeWorkspaceSummary } from '../../protocol/index.js';
import type { ApiClient } from '../api/api-client.js';
import { printJson, state, stateText, withSpinner } from '../output.js';
import { formatTable } from '../table.js';
import { addRemoveCommand } from './rm-command.js';
import { agentCell, agentLine } from './agent-text.js';
import { ephemeralCells } from './ephemeral-text.js';
import { checkKey, workspacePath } from './workspace-key.js';

export { checkKey, workspacePath } from './workspace-key.js';

/** `--issue`'s value as the spec's positive integer, refused here rather than sent as NaN or 1.5. */
function issueNumberOf(value: string): number {
  const number = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < 1)
    throw new Error(`--issue takes an issue number (a positive integer), not "${value}"`);
  return number;
}

type Summary = Partial<BridgeWorkspaceSummary> &
  Pick<BridgeWorkspaceSummary, 'repoName' | 'name' | 'branch' | 'active' | 'agent'>;

export function addWorkspaceCommands(client: Command, api: () => ApiClient, json: () => boolean): void {
  client
    .command('ls')
    .description('list workspaces')
    .option('--active', 'only active ones')
    .option('--inactive', 'only inactive ones')
    .option(
      '--wide',
      'more columns (through the bridge: issue, pull request and cleanup of ephemeral workspaces; agent description, model)',
    )
    .action(async (options: { active?: boolean; inactive?: boolean; wide?: boolean }) => {
      if (options.active && options.inactive) throw new Error('--active and --inactive exclude each other');
      const filter = options.active ? '?active=true' : options.inactive ? '?active=false' : '';
      const target = api();
      const list = await target.call<Summary[]>('GET', `/workspaces${filter}`);
      if (json()) return printJson(list);
      if (list.length === 0) return void process.stdout.write('no workspaces\n');
      // Ephemeral records are the bridge's (a ship has none); their short columns come before the free text.
      const ephemeralColumns = options.wide && target.viaBridge;
      const headers = [
        'REPO',
        'NAME',
        ...(target.viaBridge ? ['SHIP'] : []),
        'BRANCH',
        'STATE',
        'AGENT',
        ...(ephemeralColumns ? ['ISSUE', 'PR', 'CLEANUP'] : []),
        ...(options.wide ? ['DESCRIPTION', 'MODEL'] : []),
      ];
      const rows = list.map((w) => [
        w.repoName,
        w.name,
        ...(target.viaBridge ? [w.ship ?? '-'] : []),
        w.branch,
        state(w.active ? 'active' : 'inactive'),
        agentCell(w.agent, { wide: options.wide }),
        ...(ephemeralColumns ? ephemeralCells(w.ephemeral) : []),
        ...(options.wide ? [w.agent?.description ?? '-', w.agent ? `${w.agent.provider}/${w.agent.model}` : '-'] : []),
      ]);
      process.stdout.write(formatTable(headers, rows));
    });

  client
    .command('status')
    .description('one workspace in detail')
    .argument('<repo>')
    .argument('<name>')
    .action(async (repo: string, name: string) => {
      checkKey(repo, name);
      const status = await api().call<BridgeWorkspaceStatus>('GET', workspacePath(repo, name));
      if (json()) return printJson(status);
      const lines: Array<[string, string]> = [
        ['workspace', `${status.repoName}/${status.name}`],
        ...(('ship' in status && status.ship ? [['ship', status.ship]] : []) as Array<[string, string]>),
        ['branch', status.branch],
        ['state', stateText(status.state)],
      ];
      if (status.state === 'active') {
        lines.push([
          'changes',
          `+${status.diff.added} -${status.diff.removed}, ${status.diff.commits} commit(s) ahead`,
        ]);
        lines.push(['agent', agentLine(status.agent)]);
      }
      process.stdout.write(`${lines.map(([key, value]) => `${`${key}:`.padEnd(11)}${value}`).join('\n')}\n`);
    });

  client
    .command('create')
    .description(
      'create a workspace: through the bridge on --ship from the repo registry (on a branch, or on the branch the bridge links to an issue), or with --url from -u <clone url>',
    )
    .argument('<repo>')
    .argument('<name>')
    .option('-b, --branch <branch>', 'branch or tag to check out (another name becomes a new branch)')
    .option('--ship <ship>', 'the ship to create it on (through the bridge)')
    .option('-u, --clone-url <url>', 'the clone URL (straight to a ship with --url)')
    .option(
      '--issue <n>',
      "instead of -b: work on issue <n>; the bridge creates (or finds) the issue's linked branch <n>-<title> on GitHub",
    )
    .option(
      '--ephemeral',
      'with --issue: deleted automatically once its pull request is merged or closed, or the issue is closed without one',
    )
    .action(
      async (
        repo: string,
        name: string,
        options: { branch?: string; ship?: string; cloneUrl?: string; issue?: string; ephemeral?: boolean },
      ) => {
        checkKey(repo, name);
        const target = api();
        let body: Record<string, unknown>;
        let issueNumber: number | undefined;
        if (target.viaBridge) {
          if (!options.ship) throw new Error('--ship <ship> is required when creating through the bridge');
          if (options.cloneUrl)
            throw new Error(
              '-u/--clone-url is for a ship reached with --url; the bridge takes the URL from its repo registry',
            );
          if ((options.branch === undefined) === (options.issue === undefined))
            throw new Error('give exactly one of -b <branch> or --issue <n>');
          if (options.ephemeral && options.issue === undefined)
            throw new Error(
              '--ephemeral needs --issue <n>: only a workspace made from an issue is cleaned up automatically',
            );
          if (options.issue !== undefined) issueNumber = issueNumberOf(options.issue);
          body = {
            ship: options.ship,
            repoName: repo,
            name,
            ...(issueNumber === undefined ? { branch: options.branch } : { issueNumber }),
            ...(options.ephemeral ? { ephemeral: true } : {}),
          };
        } else {
          if (options.ship || options.issue !== undefined || options.ephemeral)
            throw new Error('--ship, --issue and --ephemeral go through the bridge, not --url');
          if (!options.cloneUrl || options.branch === undefined)
            throw new Error('with --url, create needs -u <clone url> and -b <branch>');
          body = { url: options.cloneUrl, repoName: repo, name, branch: options.branch };
        }
        const doing =
          issueNumber === undefined
            ? `creating ${repo}/${name} (cloning)`
            : `creating ${repo}/${name} (linking a branch to issue #${issueNumber}, cloning)`;
        const created = await withSpinner(
          doing,
          target.call<Summary & Partial<BranchOutcome>>('POST', '/workspaces', body),
        );
        if (json()) return printJson(created);
        const key = `${created.repoName}/${created.name}`;
        if (issueNumber === undefined) {
          // A name the remote lacks silently becomes a new branch (spec); said out loud, as it is often a typo.
          const where = created.branchCreated
            ? `a new branch "${created.branch}" (not on the remote${created.ship ? `; ship ${created.ship}` : ''})`
            : `branch ${created.branch}${created.ship ? ` (ship ${created.ship})` : ''}`;
          return void process.stdout.write(`created ${key} on ${where}\n`);
        }
        // The branch is the bridge's choice (the issue's linked branch): it is the line's news.
        const where = created.branchCreated
          ? `a new branch "${created.branch}" for issue #${issueNumber} (not on the remote; ship ${created.ship})`
          : `branch ${created.branch} for issue #${issueNumber} (ship ${created.ship})`;
        process.stdout.write(`created ${key} on ${where}\n`);
        if (created.ephemeral)
          process.stdout.write(
            'ephemeral: deleted automatically once its pull request is merged or closed (or the issue is closed without one)\n',
          );
      },
    );

  const simple = (verb: string, description: string, method: string, suffix: string, done: string) =>
    client
      .command(verb)
      .description(description)
      .argument('<repo>')
      .argument('<name>')
      .action(async (repo: string, name: string) => {
        checkKey(repo, name);
        const answer = await api().call<unknown>(method, workspacePath(repo, name, suffix));
        if (json()) return printJson(answer);
        process.stdout.write(`${done} ${repo}/${name}\n`);
      });
  simple('activate', "start the workspace's terminal session", 'POST', '/activate', 'activated');
  simple('deactivate', "end the workspace's terminal session (the files stay)", 'POST', '/deactivate', 'deactivated');

  // Silent on success, like `tmux send-keys`: scripts answering an awaiting agent need no output to parse.
  client
    .command('send')
    .description(
      "type text into the workspace's terminal session as one paste, then Enter (answers an awaiting agent without attaching)",
    )
    .argument('<repo>')
    .argument('<name>')
    .argument('<text>', 'the text, sent as it is (control characters included); `--` before text that starts with -')
    .option('--no-enter', 'paste the text without pressing Enter')
    .action(async (repo: string, name: string, text: string, options: { enter: boolean }) => {
      checkKey(repo, name);
      const answer = await api().call<unknown>('POST', workspacePath(repo, name, '/input'), {
        text,
        enter: options.enter,
      });
      if (json()) printJson(answer);
    });

  client
    .command('branch')
    .description('switch a workspace to another branch')
    .argument('<repo>')
    .argument('<name>')
    .argument('<branch>')
    .action(async (repo: string, name: string, branch: string) => {
      checkKey(repo, name);
      const answer = await api().call<Partial<BranchOutcome>>('POST', workspacePath(repo, name, '/branch'), { branch });
      if (json()) return printJson(answer);
      const where = answer.branchCreated ? `a new branch "${branch.trim()}" (not on the remote)` : branch;
      process.stdout.write(`${repo}/${name} is on ${where}\n`);
    });

  addRemoveCommand(client, api, json);

  client
    .command('diff')
    .description("the workspace's changes as a diff")
    .argument('<repo>')
    .argument('<name>')
    .option('--staged', 'staged changes only')
    .option('--stat', 'a diffstat')
    .option('--name-only', 'changed paths only')
    .option('--range <range>', 'a revision range (e.g. main..HEAD)')
    .option('--untracked', 'include untracked files')
    .argument('[paths...]', 'limit to these paths')
    .action(
      async (
        repo: string,
        name: string,
        paths: string[],
        options: { staged?: boolean; stat?: boolean; nameOnly?: boolean; range?: string; untracked?: boolean },
      ) => {
        checkKey(repo, name);
        const query = new URLSearchParams();
        if (options.staged) query.set('staged', 'true');
        if (options.stat) query.set('stat', 'true');
        if (options.nameOnly) query.set('nameOnly', 'true');
        if (options.range) query.set('range', options.range);
        if (options.untracked) query.set('includeUntracked', 'true');
        for (const path of paths) query.append('paths', path);
        const suffix = query.size ? `/diff?${query}` : '/diff';
        process.stdout.write(await api().text('GET', workspacePath(repo, name, suffix)));
      },
    );
}
