// `svc client rm`: deletes a workspace without losing work by accident. It asks for the guarded delete
// (`force=false`, on a ship and, by our extension, through the bridge), so a clone holding uncommitted
// changes, unpushed commits or a stash is refused with a 409 naming what was found. At a terminal the user
// sees the findings and may confirm; a script gets exit 1 and is told about --force, which deletes
// unconditionally (the spec's plain DELETE).
import type { Command } from 'commander';
import { isRefusal } from '../../server/request-failed.js';
import type { ApiClient } from '../api/api-client.js';
import { printJson } from '../output.js';
import { ask, interactive } from '../prompt.js';
import { checkKey, workspacePath } from './workspace-key.js';

export function addRemoveCommand(client: Command, api: () => ApiClient, json: () => boolean): void {
  client
    .command('rm')
    .description('delete a workspace (refused while it holds uncommitted or unpushed work; asks at a terminal)')
    .argument('<repo>')
    .argument('<name>')
    .option('--force', 'delete even when it holds work that is on no remote')
    .action(async (repo: string, name: string, options: { force?: boolean }) => {
      checkKey(repo, name);
      const target = api();
      const key = `${repo}/${name}`;
      let answer: unknown;
      try {
        answer = await target.call<unknown>('DELETE', workspacePath(repo, name, options.force ? '' : '?force=false'));
      } catch (error) {
        if (!isRefusal(error) || error.status !== 409) throw error;
        // The ship's message names every finding: `workspace <key> holds work that is not on a remote: …`.
        if (!interactive()) {
          process.stderr.write(`svc: ${error.detail}\n`);
          throw new Error(`${key} was not deleted; pass --force to delete it anyway`);
        }
        process.stderr.write(`${error.detail}\n`);
        const reply = await ask('delete anyway? [y/N] ');
        if (!/^y(es)?$/i.test(reply)) throw new Error(`${key} was not deleted`);
        answer = await target.call<unknown>('DELETE', workspacePath(repo, name));
      }
      if (json()) return printJson(answer);
      process.stdout.write(`deleted ${key}\n`);
    });
}
