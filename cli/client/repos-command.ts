// `svc client repos ls|add|rm|branches` (docs/cli.md): the bridge's repo registry. `add` then lists the new
// repo's branches through the bridge and warns when that fails (repo-probe.ts). `issues` and `pulls` are a
// quick look at the repo's forge through the bridge's forge routes (docs/architecture.md §8). Names are checked here
// first, as workspace verbs check theirs: `.` and `..` cannot even travel in a URL path (they would resolve
// away to another route), and the rule broken is said the same way the bridge says it.
import { Command, Option } from 'commander';
import { identifierProblem } from '../../protocol/identifier-rules.js';
import type { Repo, RepoBranch } from '../../protocol/index.js';
import { redactUrlCredentials } from '../../protocol/redact.js';
import type { ApiClient } from '../api/api-client.js';
import { printJson, withSpinner } from '../output.js';
import { formatTable } from '../table.js';
import { branchListingProblem } from './repo-probe.js';

/** The fields of the forge routes' issue and pull summaries (docs/architecture.md §8) these tables show. */
interface ForgeItem {
  number: number;
  title: string;
  state: string;
  author: string | null;
}
interface ForgePull extends ForgeItem {
  draft: boolean;
  headBranch: string;
}

const TITLE_CHARS = 60;
const shortTitle = (title: string) => (title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1)}…` : title);
const stateOption = () =>
  new Option('--state <state>', 'which ones').choices(['open', 'closed', 'all']).default('open');

function checkRepoName(name: string): string {
  const problem = identifierProblem(name);
  if (problem) throw new Error(`invalid repo identifier: ${problem}`);
  return name;
}

export function reposCommand(api: () => ApiClient, json: () => boolean): Command {
  const repos = new Command('repos').description("the bridge's repo registry");
  const path = (name: string, suffix = '') => `/repos/${encodeURIComponent(checkRepoName(name))}${suffix}`;
  repos
    .command('ls')
    .description('list registered repos')
    .action(async () => {
      const list = await api().call<Repo[]>('GET', '/repos');
      if (json()) return printJson(list);
      if (list.length === 0) return void process.stdout.write('no repos\n');
      process.stdout.write(
        formatTable(
          ['NAME', 'PROVIDER', 'URL'],
          list.map((r) => [r.name, r.provider, r.url]),
        ),
      );
    });
  repos
    .command('add')
    .description('register a repo by name and clone URL')
    .argument('<name>')
    .argument('<url>')
    .option('-p, --provider <provider>', 'github or custom', undefined)
    .action(async (name: string, url: string, options: { provider?: string }) => {
      checkRepoName(name);
      const bridge = api();
      const repo = await bridge.call<Repo>('POST', '/repos', {
        name,
        url,
        ...(options.provider ? { provider: options.provider } : {}),
      });
      if (json()) printJson(repo);
      else process.stdout.write(`registered repo ${repo.name} (${repo.provider}) ${repo.url}\n`);
      const problem = await withSpinner(`listing the branches of ${repo.url}`, branchListingProblem(bridge, repo.name));
      if (problem) {
        const shown = redactUrlCredentials(repo.url);
        process.stderr.write(
          `svc: warning: could not list branches of ${shown}: ${problem}; ships may still reach it with their own credentials\n`,
        );
      }
    });
  repos
    .command('rm')
    .description('remove a repo from the registry (its workspaces stay)')
    .argument('<name>')
    .action(async (name: string) => {
      const answer = await api().call<unknown>('DELETE', path(name));
      if (json()) return printJson(answer);
      process.stdout.write(`removed repo ${name}\n`);
    });
  repos
    .command('branches')
    .description("the repo's remote branches")
    .argument('<name>')
    .action(async (name: string) => {
      const branches = await api().call<RepoBranch[]>('GET', path(name, '/branches'));
      if (json()) return printJson(branches);
      if (branches.length === 0) return void process.stdout.write('no branches\n');
      process.stdout.write(
        formatTable(
          ['BRANCH', 'SHA'],
          branches.map((b) => [b.name, b.sha]),
        ),
      );
    });
  repos
    .command('issues')
    .description("the repo's issues on its forge (GitHub), through the bridge; pull requests are not listed")
    .argument('<name>')
    .addOption(stateOption())
    .action(async (name: string, options: { state: string }) => {
      const issues = await api().call<ForgeItem[]>('GET', path(name, `/issues?state=${options.state}`));
      if (json()) return printJson(issues);
      if (issues.length === 0)
        return void process.stdout.write(`no ${options.state === 'all' ? '' : `${options.state} `}issues\n`);
      process.stdout.write(
        formatTable(
          ['NUMBER', 'TITLE', 'STATE', 'AUTHOR'],
          issues.map((i) => [`#${i.number}`, shortTitle(i.title), i.state, i.author]),
        ),
      );
    });
  repos
    .command('pulls')
    .description("the repo's pull requests on its forge (GitHub), through the bridge")
    .argument('<name>')
    .addOption(stateOption())
    .action(async (name: string, options: { state: string }) => {
      const pulls = await api().call<ForgePull[]>('GET', path(name, `/pulls?state=${options.state}`));
      if (json()) return printJson(pulls);
      if (pulls.length === 0)
        return void process.stdout.write(`no ${options.state === 'all' ? '' : `${options.state} `}pull requests\n`);
      const rows = pulls.map((p) => [
        `#${p.number}`,
        shortTitle(p.title),
        p.draft ? `${p.state} (draft)` : p.state,
        p.author,
        p.headBranch,
      ]);
      process.stdout.write(formatTable(['NUMBER', 'TITLE', 'STATE', 'AUTHOR', 'HEAD'], rows));
    });
  return repos;
}
