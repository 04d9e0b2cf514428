// `svc client`: the verbs on workspaces, ships, repos and resources (docs/cli.md). Through the bridge with
// the stored session by default (`--bridge-url`, 4800); with `--url` straight to one ship, presenting
// SVC_BRIDGE_TOKEN when set, else the token a local `svc launch` recorded for that ship. Each group of verbs
// lives in its own module under client/.
import { Command } from 'commander';
import { BRIDGE_DEFAULT_PORT } from '../protocol/ports.js';
import { workspacePath } from '../protocol/workspace-path.js';
import { ATTACH_HELP } from './attach/chord.js';
import { normalizeUrl } from './url.js';
import { BridgeClient } from './auth/bridge-client.js';
import { DirectShipClient } from './api/ship-client.js';
import { directShipToken } from './local-ship-tokens.js';
import type { ApiClient } from './api/api-client.js';
import { shipsCommand } from './client/ships-command.js';
import { reposCommand } from './client/repos-command.js';
import { resourcesCommand } from './client/resources-command.js';
import { armoryCommand } from './client/armory-command.js';
import { sweepCommand } from './client/sweep-command.js';
import { addWorkspaceCommands, checkKey } from './client/workspace-commands.js';
import { ensureAttachable } from './client/attach-check.js';

interface ClientOptions {
  url?: string;
  bridgeUrl?: string;
  json?: boolean;
}

function terminalSocketUrl(base: string, repo: string, name: string): string {
  const url = new URL(base);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = workspacePath(repo, name, '/terminal');
  return url.toString();
}

export function clientCommand(): Command {
  const client = new Command('client')
    .description('act on workspaces, ships and repos through the bridge (--bridge-url) or one ship (--url)')
    .option('--url <ship>', 'talk to this ship directly (4700, host:port or a URL)')
    .option('--bridge-url <bridge>', 'talk to this bridge (default 4800)')
    .option('--json', "print the API's JSON instead of tables");
  const options = () => client.opts<ClientOptions>();
  const json = () => options().json === true;
  const bridge = () => {
    if (options().url !== undefined) throw new Error('this command goes through the bridge; drop --url');
    return new BridgeClient(options().bridgeUrl ?? String(BRIDGE_DEFAULT_PORT));
  };
  const api = (): ApiClient => (options().url !== undefined ? new DirectShipClient(options().url!) : bridge());

  addWorkspaceCommands(client, api, json);
  client.addCommand(shipsCommand(bridge, json));
  client.addCommand(reposCommand(bridge, json));
  client.addCommand(resourcesCommand(api, json));
  client.addCommand(armoryCommand(bridge, json));
  client.addCommand(sweepCommand(bridge, json));

  client
    .command('attach')
    .description(`open a workspace's terminal here. ${ATTACH_HELP}`)
    .argument('<repo>', 'repo name')
    .argument('<name>', 'workspace name')
    .action(async (repo: string, name: string) => {
      checkKey(repo, name);
      // Loaded on use (ws, the screen renderer): see the start-up note in main.ts.
      const { attach, requireTerminal } = await import('./attach/attach-session.js');
      requireTerminal();
      // Before the alternate screen: a missing or inactive workspace is said in words, not a flash and exit 1.
      const given = options();
      const target =
        given.url !== undefined
          ? ['--url', given.url]
          : given.bridgeUrl !== undefined
            ? ['--bridge-url', given.bridgeUrl]
            : [];
      await ensureAttachable(api(), repo, name, target);
      let url: string;
      let headers: Record<string, string> | undefined;
      if (options().url !== undefined) {
        url = terminalSocketUrl(normalizeUrl(options().url!), repo, name);
        const token = directShipToken(normalizeUrl(options().url!));
        headers = token ? { authorization: `Bearer ${token}` } : undefined;
      } else {
        // The bridge takes a single-use ticket on WebSocket routes, minted with the session.
        const through = bridge();
        const { ticket } = await through.call<{ ticket: string }>('POST', '/auth/ws-ticket');
        url = `${terminalSocketUrl(through.url, repo, name)}?ticket=${encodeURIComponent(ticket)}`;
      }
      const result = await attach({ url, headers });
      if (result.reason === 'exit') {
        // Like ssh: the remote shell's exit code becomes ours, and is said once the screen is back.
        process.exitCode = Math.max(0, Math.min(255, result.exitCode ?? 0));
        process.stderr.write(`svc: the shell in ${repo}/${name} exited with code ${result.exitCode ?? 0}\n`);
      } else if (result.reason === 'detached') {
        process.stderr.write(`svc: detached from ${repo}/${name}; its session keeps running\n`);
      } else {
        throw new Error(`the terminal connection ended${result.detail ? ` (${result.detail})` : ''}`);
      }
    });
  return client;
}
