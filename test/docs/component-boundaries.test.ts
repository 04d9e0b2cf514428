// The layout docs/architecture.md §1 draws, held by the imports: protocol/ (wire shapes and pure rules the
// GUI may load) imports nothing of the repository but itself; server/ (node-only code the servers and the
// CLI share) only protocol/; the ship, the bridge and the operator only protocol/ and server/; the GUI only
// protocol/. The CLI is the one entry point that starts the others, so it may import their entry modules
// (`ship/server.ts` and the session holder's, `bridge/server.ts`, `operator/…/start.ts`) and nothing deeper.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

const ALLOWED: Record<string, string[]> = {
  protocol: ['protocol'],
  server: ['server', 'protocol'],
  ship: ['ship', 'server', 'protocol'],
  bridge: ['bridge', 'server', 'protocol'],
  operator: ['operator', 'server', 'protocol'],
  cli: ['cli', 'server', 'protocol'],
  'web/src': ['web/src', 'protocol'],
};
/** What the CLI starts: a component's entry module, not its insides (the session holder is the ship's second). */
const CLI_ENTRIES = [
  /^ship\/server\.ts$/,
  /^ship\/sessions\/(session-holder|drain-report)\.ts$/,
  /^bridge\/server\.ts$/,
  /^operator\/runtime\/start\.ts$/,
];

const sources = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts', '*.tsx'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && !/\.test\.tsx?$/.test(file));

function componentOf(file: string): string | undefined {
  return Object.keys(ALLOWED).find((component) => file === component || file.startsWith(`${component}/`));
}

it('each component imports only the folders it may', () => {
  const problems: string[] = [];
  for (const file of sources) {
    const component = componentOf(file);
    if (!component) continue;
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const [, specifier] of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = normalize(join(dirname(file), specifier!)).replace(/\.js$/, '.ts');
      const targetComponent = componentOf(target) ?? target.split('/')[0]!;
      if (ALLOWED[component]!.includes(targetComponent)) continue;
      if (component === 'cli' && CLI_ENTRIES.some((entry) => entry.test(target))) continue;
      problems.push(`${file} imports ${target}`);
    }
  }
  expect(problems).toEqual([]);
});
