// charts/svc/README.md lists every value of charts/svc/values.yaml, generated from its `# --` comments
// (test/chart/values-table.ts) between the `values:begin`/`values:end` markers. A stale table fails; rewrite it
// with `SVC_UPDATE_DOCS=1 npx vitest run test/chart/readme.test.ts`.
// Also what the README must say right (issue #27, item 4): the first code block is a complete install (the
// namespace, its Pod Security label, the database Secret, helm install), consistent with "Install"; every
// condition and Event reason the operator writes (operator/reconcile/) has a row or a mention in "Ship and Repo
// status"; "Upgrading, CRDs and uninstalling" names the operator's finalizer, the order and the recovery patch.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REASONS } from '../../operator/reconcile/conditions.js';
import { FINALIZER } from '../../operator/resources/index.js';
import { CHART, ROOT, UPDATE } from './render.js';
import { valueRows, valuesTable } from './values-table.js';

const README = join(CHART, 'README.md');
const BEGIN = '<!-- values:begin -->';
const END = '<!-- values:end -->';

it('every value in values.yaml carries a `# --` description', () => {
  expect(valueRows(readFileSync(join(CHART, 'values.yaml'), 'utf8')).undocumented).toEqual([]);
});

it('the generator notices an undocumented value and reads nested and continued descriptions', () => {
  const { rows, undocumented } = valueRows(
    'a:\n  # -- first\n  # continued\n  b: 1\n  c: {}\n# -- a map, documented whole\nd:\n  e: [1]\n',
  );
  expect(rows).toEqual([
    { key: 'a.b', default: 1, description: 'first continued' },
    { key: 'd', default: { e: [1] }, description: 'a map, documented whole' },
  ]);
  expect(undocumented).toEqual(['a.c']);
});

it("the README's values table is generated from values.yaml", () => {
  const readme = readFileSync(README, 'utf8');
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  expect(begin, 'README.md lacks the values markers').toBeGreaterThan(0);
  expect(end).toBeGreaterThan(begin);
  const table = valuesTable(valueRows(readFileSync(join(CHART, 'values.yaml'), 'utf8')).rows);
  const fresh = `${readme.slice(0, begin + BEGIN.length)}\n${table}\n${readme.slice(end)}`;
  if (UPDATE) writeFileSync(README, fresh);
  expect(
    UPDATE ? readFileSync(README, 'utf8') : readme,
    "charts/svc/README.md's values table is stale: SVC_UPDATE_DOCS=1 npx vitest run test/chart/readme.test.ts",
  ).toBe(fresh);
});

/** The README's `## title` section, up to the next `## ` ('' when there is none: the checks then fail). */
function section(readme: string, title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) return '';
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The fenced code blocks of `text`, each as its commands (continuation lines joined, comments dropped). */
function codeBlocks(text: string): string[][] {
  return [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].map(([, body]) =>
    body!
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) =>
        line
          .replace(/\s+#\s.*$/, '')
          .replace(/\s+/g, ' ')
          .trim(),
      )
      .filter((line) => line && !line.startsWith('#')),
  );
}

describe("the README's quick start", () => {
  const readme = readFileSync(README, 'utf8');
  const quickStart = codeBlocks(readme.slice(0, readme.indexOf('\n## ')))[0]!;
  const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as {
    podSecurity: { enforce: string };
    database: { existingSecretKey: string };
  };
  const step = (commands: string[], pattern: RegExp) => commands.findIndex((command) => pattern.test(command));

  it('is the first code block, before any section, and a complete install in order', () => {
    expect(quickStart, 'README.md has no code block before its first section').toBeDefined();
    const steps = [
      /^kubectl create namespace svc$/,
      new RegExp(
        `^kubectl label namespace svc pod-security\\.kubernetes\\.io/enforce=${values.podSecurity.enforce}\\b`,
      ),
      // values.yaml: database.existingSecret unset means svc-database, its URL under existingSecretKey.
      new RegExp(
        `^kubectl -n svc create secret generic svc-database --from-literal=${values.database.existingSecretKey}=`,
      ),
      /^helm install svc charts\/svc --namespace svc\b/,
      /^svc login --bridge-url https:\/\//,
    ].map((pattern) => step(quickStart, pattern));
    expect(
      steps.every((index) => index >= 0),
      `missing steps in:\n${quickStart.join('\n')}`,
    ).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
  });

  it('says how to go without the database Secret: postgresql.enabled=true', () => {
    const after = readme.slice(0, readme.indexOf('\n## '));
    expect(after).toMatch(/svc-database[\s\S]*--set postgresql\.enabled=true/);
  });

  it('runs the same commands as "Install", which also shows the bundled-PostgreSQL variant', () => {
    const [external = [], bundled = []] = codeBlocks(section(readme, 'Install'));
    expect(external.length, '"Install" has no code block').toBeGreaterThan(0);
    for (const command of external) expect(quickStart, `"Install" runs ${command}`).toContain(command);
    expect(
      bundled.some(
        (command) => command.startsWith('helm install') && command.includes('--set postgresql.enabled=true'),
      ),
    ).toBe(true);
    expect(bundled.some((command) => command.includes('create secret'))).toBe(false);
    expect(bundled.slice(0, 2)).toEqual(external.slice(0, 2));
  });
});

/** The non-test TypeScript sources under operator/. */
function operatorSources(): { file: string; text: string }[] {
  const dir = join(ROOT, 'operator');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => ({ file: name, text: readFileSync(join(dir, name), 'utf8') }));
}

describe("the README's conditions section", () => {
  const text = section(readFileSync(README, 'utf8'), 'Ship and Repo status: conditions and reasons');
  const sources = operatorSources();
  // Condition reasons: REASONS.<Name> where a reconciler uses one (conditions.ts only defines them).
  const conditionReasons = new Set(
    sources
      .filter(({ file }) => !file.endsWith('conditions.ts'))
      .flatMap(({ text }) => [...text.matchAll(/\bREASONS\.(\w+)/g)].map((match) => match[1]!)),
  );
  // Event reasons the reconcilers spell out (the Warning Events reuse the Ready reason).
  const eventReasons = new Set(
    sources
      .filter(({ file }) => file.startsWith('reconcile'))
      .flatMap(({ text }) =>
        [...text.matchAll(/type: '(?:Normal|Warning)',\s*reason: '(\w+)'/g)].map((match) => match[1]!),
      ),
  );
  const rows = new Set([...text.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]!));

  it('finds the reasons in operator/ (the grep still works)', () => {
    expect(conditionReasons.size).toBeGreaterThanOrEqual(10);
    for (const reason of conditionReasons) expect(Object.keys(REASONS), `REASONS.${reason}`).toContain(reason);
    expect(eventReasons).toEqual(
      new Set(['Registered', 'Adopted', 'Replaced', 'URLChanged', 'TokensChanged', 'Deregistered']),
    );
  });

  it('has a row for every condition reason the operator writes, and none it does not', () => {
    expect([...rows].sort()).toEqual(
      [...conditionReasons].map((reason) => REASONS[reason as keyof typeof REASONS]).sort(),
    );
  });

  it('names every Event reason and both condition types', () => {
    for (const reason of eventReasons) expect(text, `Event reason ${reason}`).toContain(`\`${reason}\``);
    for (const type of ['Registered', 'Ready']) expect(text).toContain(`**\`${type}\`**`);
  });
});

describe('the README on uninstalling', () => {
  const text = section(readFileSync(README, 'utf8'), 'Upgrading, CRDs and uninstalling');

  it("names the operator's finalizer", () => {
    expect(text).toContain(`\`${FINALIZER}\``);
  });

  it('deletes the DaemonSet, then the Ships and Repos (waiting), then uninstalls', () => {
    const commands = codeBlocks(text).flat();
    const order = [
      /^kubectl -n svc delete daemonset svc-ship$/,
      /^kubectl -n svc delete ships,repos --all\b/,
      /^helm uninstall svc -n svc$/,
    ].map((pattern) => commands.findIndex((command) => pattern.test(command)));
    expect(
      order.every((index) => index >= 0),
      commands.join('\n'),
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(commands[order[1]!]).not.toContain('--wait=false');
  });

  it('gives the recovery patch for Ships and Repos stuck on the finalizer', () => {
    expect(text).toContain(`kubectl -n svc patch ship NAME --type=merge -p '{"metadata":{"finalizers":null}}'`);
    expect(text).toMatch(/get ships\.svc\.dev,repos\.svc\.dev -o name/);
  });
});
