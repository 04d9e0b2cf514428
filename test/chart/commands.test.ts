// The chart's svc containers speak the CLI that exists: every flag they pass is an option of that
// subcommand (read from the commander definitions in cli/), every environment variable they set is one the
// code reads (or one a `$(NAME)` of the same container expands), and GIT_ALLOW_PROTOCOL is the list the
// code itself uses with --no-local-repos. The end-to-end run of these commands is a separate test.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { bridgeCommand } from '../../cli/bridge-command.js';
import { operatorCommand } from '../../cli/operator-command.js';
import { sessionHolderCommand } from '../../cli/session-holder-command.js';
import { shipCommand } from '../../cli/ship-command.js';
import { gitAllowProtocol } from '../../protocol/clone-url.js';
import { CASES, caseObjects, helmAvailable, ROOT } from './render.js';

const COMMANDS: Record<string, Command> = {
  bridge: bridgeCommand(),
  ship: shipCommand(),
  operator: operatorCommand(),
  'session-holder': sessionHolderCommand(),
};

/** Every non-test source of the components, for the variables the code reads. */
const SOURCE = ['protocol', 'ship', 'bridge', 'cli', 'operator']
  .flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .map((name) => readFileSync(join(ROOT, dir, name), 'utf8')),
  )
  .join('\n');

/** Whether the code reads `name` from its environment (env.NAME, env['NAME'], .env('NAME'), a list of names). */
function readByCode(name: string): boolean {
  return new RegExp(`(env\\.${name}\\b|env\\[['"]${name}['"]\\]|\\.env\\(['"]${name}['"]\\)|['"]${name}['"])`).test(
    SOURCE,
  );
}

type Json = Record<string, any>;

describe.skipIf(!helmAvailable('test/chart/commands.test.ts'))("the chart's svc commands", () => {
  it.each(CASES)('%s: flags and variables exist', async (name) => {
    const problems: string[] = [];
    for (const object of await caseObjects(name)) {
      if (!['Deployment', 'DaemonSet'].includes(object.kind)) continue;
      for (const container of (object.spec as Json).template.spec.containers as Json[]) {
        if (!/(^|\/)svc:/.test(container.image)) continue;
        const at = `${object.kind} ${object.metadata.name}`;
        const [subcommand, ...args] = container.args as string[];
        const command = COMMANDS[subcommand!];
        if (!command) {
          problems.push(`${at}: svc ${subcommand} is not a server subcommand`);
          continue;
        }
        const longs = new Set(command.options.map((option) => option.long));
        for (const arg of args)
          if (arg.startsWith('--') && !longs.has(arg)) problems.push(`${at}: svc ${subcommand} has no option ${arg}`);
        const expanded = new Set([...JSON.stringify(container).matchAll(/\$\((\w+)\)/g)].map((match) => match[1]!));
        for (const { name: variable, value } of container.env as Json[]) {
          if (!readByCode(variable) && !expanded.has(variable) && variable !== 'GIT_ALLOW_PROTOCOL')
            problems.push(`${at}: sets ${variable}, which nothing reads`);
          if (variable === 'GIT_ALLOW_PROTOCOL' && value !== gitAllowProtocol({ allowLocalRepos: false }))
            problems.push(
              `${at}: GIT_ALLOW_PROTOCOL ${value} differs from the code's ${gitAllowProtocol({ allowLocalRepos: false })}`,
            );
        }
        // The session holder clones nothing (the ship does).
        if (!['operator', 'session-holder'].includes(subcommand!) && !args.includes('--no-local-repos'))
          problems.push(`${at}: without --no-local-repos`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("a ship listens beyond loopback only with its own node's pair from the operator's token exchange, never a shared Secret", async () => {
    for (const name of CASES) {
      for (const object of await caseObjects(name)) {
        if (object.kind !== 'DaemonSet' || object.metadata.labels?.['app.kubernetes.io/component'] !== 'ship') continue;
        const container = (object.spec as Json).template.spec.containers[0];
        expect(container.args.slice(0, 3)).toEqual(['ship', '--host', '0.0.0.0']);
        expect(container.env.filter((env: Json) => env.name.startsWith('SVC_') && env.name.endsWith('_TOKEN'))).toEqual(
          [],
        );
        expect(container.args[container.args.indexOf('--tokens-from') + 1]).toBe(
          'http://svc-operator.svc.svc:8082/ship-tokens',
        );
        expect(container.args[container.args.indexOf('--tokens-credential') + 1]).toBe(
          '/var/run/svc/ship-identity/token',
        );
        const pod = (object.spec as Json).template.spec;
        expect(pod.automountServiceAccountToken).toBe(false);
        expect(pod.volumes.find((volume: Json) => volume.name === 'ship-identity').projected.sources).toEqual([
          { serviceAccountToken: { audience: 'svc.dev/ship-tokens', expirationSeconds: 3600, path: 'token' } },
        ]);
        expect(container.args[container.args.indexOf('--name') + 1]).toBe('$(NODE_NAME)');
        expect(container.env.find((env: Json) => env.name === 'NODE_NAME').valueFrom).toEqual({
          fieldRef: { fieldPath: 'spec.nodeName' },
        });
      }
    }
  });

  it('the checks notice an unknown flag and an unread variable', () => {
    expect(readByCode('SVC_DATABASE_URL')).toBe(true);
    expect(readByCode('SVC_DATABASE_URI')).toBe(false);
    expect(COMMANDS.bridge!.options.map((option) => option.long)).toContain('--metrics-port');
    expect(COMMANDS.bridge!.options.map((option) => option.long)).not.toContain('--metric-port');
  });
});
