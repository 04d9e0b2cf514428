// The repository documents itself: no markdown file in it links or points to a path outside the checkout
// (a clone has nothing beside it), and every relative link between its documents resolves.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const markdown = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && !file.startsWith('node_modules/'));

it('no document points outside the repository, and every relative link resolves', () => {
  const problems: string[] = [];
  for (const file of markdown) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    if (/\.\.\/shared\//.test(text)) problems.push(`${file}: mentions ../shared/`);
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      const path = resolve(dirname(join(ROOT, file)), target!);
      if (!path.startsWith(`${ROOT}/`)) problems.push(`${file}: links outside the repository: ${target}`);
      else if (!existsSync(path)) problems.push(`${file}: broken link: ${target}`);
    }
  }
  expect(problems).toEqual([]);
});
