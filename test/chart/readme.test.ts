// charts/svc/README.md lists every value of charts/svc/values.yaml, generated from its `# --` comments
// (test/chart/values-table.ts) between the `values:begin`/`values:end` markers. A stale table fails; rewrite it
// with `SVC_UPDATE_DOCS=1 npx vitest run test/chart/readme.test.ts`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CHART, UPDATE } from './render.js';
import { valueRows, valuesTable } from './values-table.js';

const README = join(CHART, 'README.md');
const BEGIN = '<!-- values:begin -->';
const END = '<!-- values:end -->';

it('every value in values.yaml carries a `# --` description', () => {
  expect(valueRows(readFileSync(join(CHART, 'values.yaml'), 'utf8')).undocumented).toEqual([]);
});

it('the generator notices an undocumented value and reads nested and continued descriptions', () => {
  const { rows, undocumented } = valueRows('a:\n  # -- first\n  # continued\n  b: 1\n  c: {}\n# -- a map, documented whole\nd:\n  e: [1]\n');
  expect(rows).toEqual([{ key: 'a.b', default: 1, description: 'first continued' }, { key: 'd', default: { e: [1] }, description: 'a map, documented whole' }]);
  expect(undocumented).toEqual(['a.c']);
});

it('the README\'s values table is generated from values.yaml', () => {
  const readme = readFileSync(README, 'utf8');
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  expect(begin, 'README.md lacks the values markers').toBeGreaterThan(0);
  expect(end).toBeGreaterThan(begin);
  const table = valuesTable(valueRows(readFileSync(join(CHART, 'values.yaml'), 'utf8')).rows);
  const fresh = `${readme.slice(0, begin + BEGIN.length)}\n${table}\n${readme.slice(end)}`;
  if (UPDATE) writeFileSync(README, fresh);
  expect(UPDATE ? readFileSync(README, 'utf8') : readme, 'charts/svc/README.md\'s values table is stale: SVC_UPDATE_DOCS=1 npx vitest run test/chart/readme.test.ts').toBe(fresh);
});
