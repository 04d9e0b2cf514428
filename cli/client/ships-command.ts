// `svc client ships ls|add|rm` (docs/cli.md). `add` never takes a token as a flag (spec "Ship/bridge token
// pair" rule 5): at a terminal it asks without echo for the ship token (blank: no credentials) and then the
// bridge token; SVC_REGISTER_SHIP_TOKEN / SVC_REGISTER_BRIDGE_TOKEN replace the prompts (either one set
// suppresses them all); with no terminal and neither set, the ship is registered without credentials.
import { Command } from 'commander';
import type { ShipInfo } from '../../protocol/index.js';
import type { BridgeClient } from '../auth/bridge-client.js';
import { askSecret, interactive } from '../prompt.js';
import { formatTable } from '../table.js';
import { printJson, state, withSpinner } from '../output.js';
import { normalizeUrl } from '../url.js';

export interface ShipTokens {
  shipToken?: string;
  bridgeToken?: string;
}

/** The token pair to register with, from the environment or the prompts. */
export async function registrationTokens(env: NodeJS.ProcessEnv = process.env): Promise<ShipTokens> {
  const fromEnv = env.SVC_REGISTER_SHIP_TOKEN !== undefined || env.SVC_REGISTER_BRIDGE_TOKEN !== undefined;
  if (fromEnv)
    return {
      shipToken: env.SVC_REGISTER_SHIP_TOKEN || undefined,
      bridgeToken: env.SVC_REGISTER_BRIDGE_TOKEN || undefined,
    };
  if (!interactive()) return {};
  const shipToken = await askSecret('Ship token (blank: register without credentials): ');
  if (shipToken === '') return {};
  const bridgeToken = await askSecret('Bridge token: ');
  return { shipToken, bridgeToken };
}

export function shipsCommand(bridge: () => BridgeClient, json: () => boolean): Command {
  const ships = new Command('ships').description("the bridge's ship roster");
  ships
    .command('ls')
    .description('list registered ships')
    .action(async () => {
      const list = await bridge().call<ShipInfo[]>('GET', '/ships');
      if (json()) return printJson(list);
      if (list.length === 0) return void process.stdout.write('no ships\n');
      process.stdout.write(
        formatTable(
          ['NAME', 'STATUS', 'URL'],
          list.map((s) => [s.name, state(s.status), s.url]),
        ),
      );
    });
  ships
    .command('add')
    .description(
      'register the ship at <url> (admins); tokens are asked, or read from SVC_REGISTER_SHIP_TOKEN/SVC_REGISTER_BRIDGE_TOKEN',
    )
    .argument('<url>', 'the ship (4700, host:port or a URL)')
    .action(async (url: string) => {
      const client = bridge();
      await client.token(); // log in before asking for the ship's tokens
      const tokens = await registrationTokens();
      const info = await withSpinner(
        `registering ${normalizeUrl(url)}`,
        client.call<ShipInfo>('POST', '/ships', { url: normalizeUrl(url), ...tokens }),
      );
      if (json()) return printJson(info);
      process.stdout.write(`registered ship ${info.name} (${info.status}) at ${info.url}\n`);
    });
  ships
    .command('rm')
    .description('deregister a ship (admins)')
    .argument('<name>')
    .action(async (name: string) => {
      const answer = await bridge().call<unknown>('DELETE', `/ships/${encodeURIComponent(name)}`);
      if (json()) return printJson(answer);
      process.stdout.write(`removed ship ${name}\n`);
    });
  return ships;
}
