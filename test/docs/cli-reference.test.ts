// docs/cli.md is the CLI's own help, every command of the tree commander builds, rendered as markdown: it
// cannot drift from the commands. After changing a command, rewrite it with
// `SVC_UPDATE_DOCS=1 npx vitest run test/docs/cli-reference.test.ts`.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { expect, it } from 'vitest';
import { buildProgram } from '../../cli/main.js';

const FILE = resolve(import.meta.dirname, '../../docs/cli.md');

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function sections(command: Command): string[] {
  // Help text as `svc … --help` prints it, at a fixed width so the file does not depend on the terminal.
  command.configureOutput({ getOutHelpWidth: () => 100, getErrHelpWidth: () => 100 });
  const own = `## \`${commandPath(command)}\`\n\n\`\`\`text\n${command.helpInformation().trimEnd()}\n\`\`\`\n`;
  return [own, ...command.commands.flatMap((sub) => sections(sub))];
}

function render(): string {
  const header = [
    '# svc command reference',
    '',
    'Generated from the commands themselves (`svc <command> --help` prints the same); do not edit by hand.',
    'Errors print as `svc: <message>` on stderr with exit code 1; usage errors exit 2.',
    '',
  ].join('\n');
  return `${header}\n${sections(buildProgram()).join('\n')}`;
}

it('docs/cli.md is the help of every command', () => {
  const text = render();
  if (process.env.SVC_UPDATE_DOCS === '1') writeFileSync(FILE, text);
  expect(
    text,
    'docs/cli.md is stale: rewrite it with SVC_UPDATE_DOCS=1 npx vitest run test/docs/cli-reference.test.ts',
  ).toBe(readFileSync(FILE, 'utf8'));
});
