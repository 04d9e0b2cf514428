// `svc client armory ls|cat|ships` (docs/cli.md): the bridge's armory manifest, one file's contents (text
// only: binary is refused with a clear message), and each ship's sync state against the current revision.
import { Command, Option } from 'commander';
import type { ArmoryFile, ArmoryManifest, ShipArmoryState } from '../../protocol/index.js';
import type { BridgeClient } from '../auth/bridge-client.js';
import { printJson, state } from '../output.js';
import { formatTable } from '../table.js';

/** in sync / behind / never / error / unknown, from a ship's state and the bridge's revision. */
export function syncWord(entry: ShipArmoryState, revision: string | null): string {
  if (!entry.state) return 'unknown';
  if (entry.state.lastError) return 'error';
  if (!entry.state.revision) return 'never';
  return entry.state.revision === revision ? 'in sync' : 'behind';
}

export function armoryCommand(bridge: () => BridgeClient, json: () => boolean): Command {
  const armory = new Command('armory').description("the bridge's armory: skills, plugins and dotfiles for every ship");
  armory
    .command('ls')
    .description("list the armory's files")
    .addOption(new Option('--section <section>', 'only this section').choices(['skills', 'plugins', 'dotfiles']))
    .action(async (options: { section?: string }) => {
      const manifest = await bridge().call<ArmoryManifest>('GET', '/armory');
      const entries = manifest.entries.filter((e) => !options.section || e.section === options.section);
      if (json()) return printJson(options.section ? { ...manifest, entries } : manifest);
      if (entries.length === 0)
        return void process.stdout.write(`no armory files (revision ${manifest.revision.slice(0, 12)})\n`);
      process.stdout.write(
        formatTable(
          ['PATH', 'SIZE', 'MODE', 'SHA256'],
          entries.map((e) => [e.path, e.size, e.mode.toString(8), e.sha256.slice(0, 12)]),
        ),
      );
      const mapped = Object.entries(manifest.dotfileMap);
      if (mapped.length && (!options.section || options.section === 'dotfiles')) {
        process.stdout.write(
          `\n${formatTable(
            ['DOTFILE', 'DESTINATION'],
            mapped.map(([source, destination]) => [source, destination]),
          )}`,
        );
      }
      process.stdout.write(`\nrevision ${manifest.revision}\n`);
    });
  armory
    .command('cat')
    .description('print one armory file (text files only)')
    .argument('<path>', 'an armory path, e.g. skills/review/SKILL.md')
    .action(async (path: string) => {
      const file = await bridge().call<ArmoryFile>('GET', `/armory/file?path=${encodeURIComponent(path)}`);
      if (json()) return printJson(file);
      if (file.encoding !== 'utf8')
        throw new Error(`${path} is a binary file (${file.size} bytes); use --json to get it base64-encoded`);
      process.stdout.write(file.contents);
    });
  armory
    .command('ships')
    .description("each ship's armory sync state")
    .action(async () => {
      const client = bridge();
      const [ships, revision] = await Promise.all([
        client.call<ShipArmoryState[]>('GET', '/armory/ships'),
        client.call<ArmoryManifest>('GET', '/armory').then(
          (m) => m.revision,
          () => null,
        ),
      ]);
      if (json()) return printJson(ships);
      if (ships.length === 0) return void process.stdout.write('no ships\n');
      const rows = ships.map((s) => [
        s.ship,
        state(s.status),
        syncWord(s, revision),
        s.state?.revision?.slice(0, 12) ?? '-',
        s.state?.syncedAt ?? '-',
        s.state?.install?.conflicts.length ?? 0,
      ]);
      process.stdout.write(formatTable(['SHIP', 'STATUS', 'STATE', 'REVISION', 'SYNCED', 'CONFLICTS'], rows));
      for (const s of ships) {
        if (s.state?.lastError) process.stdout.write(`${s.ship}: error: ${s.state.lastError}\n`);
        for (const conflict of s.state?.install?.conflicts ?? [])
          process.stdout.write(`${s.ship}: conflict: ${conflict}\n`);
        for (const warning of s.state?.install?.warnings ?? [])
          process.stdout.write(`${s.ship}: warning: ${warning}\n`);
      }
    });
  return armory;
}
