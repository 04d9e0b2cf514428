// `svc client`: verbs on workspaces. With `--url` they go straight to one ship (presenting SVC_BRIDGE_TOKEN
// when set); otherwise through the bridge (`--bridge-url`) with the stored session. For now: `attach` and
// `ships`.
import { Command } from 'commander';
import { BRIDGE_DEFAULT_PORT, identifierProblem } from '../protocol/index.js';
import { attach, ATTACH_HELP } from './attach/attach-session.js';
import { normalizeUrl } from './url.js';
import { BridgeClient } from './auth/bridge-client.js';
import { shipsCommand } from './client/ships-command.js';

interface ClientOptions {
  url?: string;
  bridgeUrl?: string;
  json?: boolean;
}

function terminalSocketUrl(base: string, repo: string, name: string): string {
  const url = new URL(base);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = `/workspaces/${encodeURIComponent(repo)}/${encodeURIComponent(name)}/terminal`;
  return url.toString();
}

function checkKey(repo: string, name: string): void {
  const repoProblem = identifierProblem(repo);
  if (repoProblem) throw new Error(`invalid repo identifier: ${repoProblem}`);
  const nameProblem = identifierProblem(name);
  if (nameProblem) throw new Error(`invalid workspace identifier: ${nameProblem}`);
}

export function clientCommand(): Command {
  const client = new Command('client')
    .description('act on workspaces, through a ship (--url) or the bridge (--bridge-url)')
    .option('--url <ship>', 'talk to this ship directly (4700, host:port or a URL)')
    .option('--bridge-url <bridge>', 'talk to this bridge (default 4800)')
    .option('--json', 'print JSON instead of tables');
  const bridge = () => new BridgeClient(client.opts<ClientOptions>().bridgeUrl ?? String(BRIDGE_DEFAULT_PORT));
  client.addCommand(shipsCommand(bridge, () => client.opts<ClientOptions>().json === true));

  client
    .command('attach')
    .description(`open a workspace's terminal here. ${ATTACH_HELP}`)
    .argument('<repo>', 'repo name')
    .argument('<name>', 'workspace name')
    .action(async (repo: string, name: string) => {
      checkKey(repo, name);
      const options = client.opts<ClientOptions>();
      // Straight to one ship with --url (presenting SVC_BRIDGE_TOKEN), else through the bridge, which finds
      // the ship that holds the workspace.
      let url: string;
      let headers: Record<string, string> | undefined;
      if (options.url !== undefined) {
        url = terminalSocketUrl(normalizeUrl(options.url), repo, name);
        const token = process.env.SVC_BRIDGE_TOKEN;
        headers = token ? { authorization: `Bearer ${token}` } : undefined;
      } else {
        // The bridge takes a single-use ticket on WebSocket routes, minted with the session.
        const through = bridge();
        const { ticket } = await through.call<{ ticket: string }>('POST', '/auth/ws-ticket');
        url = `${terminalSocketUrl(through.url, repo, name)}?ticket=${encodeURIComponent(ticket)}`;
      }
      const result = await attach({ url, headers });
      if (result.reason === 'exit') {
        // Like ssh: the remote shell's exit code becomes ours.
        process.exitCode = Math.max(0, Math.min(255, result.exitCode ?? 0));
      } else if (result.reason === 'detached') {
        process.stderr.write(`svc: detached from ${repo}/${name}; its session keeps running\n`);
      } else {
        throw new Error(`the terminal connection ended${result.detail ? ` (${result.detail})` : ''}`);
      }
    });
  return client;
}
