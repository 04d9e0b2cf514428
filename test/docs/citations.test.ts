// Citations resolve inside the repository: no file cites a design document or security notes that live
// outside the checkout, or a path into ../shared, and every `docs/<doc>.md §n` or `docs/security.md Hn`
// (Fn, Xn) citation names a section or label the cited document has. docs/architecture.md and
// docs/security.md number their sections `## §n …`; docs/security.md gives each label a heading
// `### Hn …` or a table row `| Xn |`.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const THIS_FILE = 'test/docs/citations.test.ts';
const TEXT = /\.(ts|tsx|js|mjs|cjs|json|ya?ml|tpl|md|sh|txt)$|(^|\/)(Dockerfile[^/]*|\.ci\/[^/]+)$/;

const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && TEXT.test(file) && file !== THIS_FILE && !file.startsWith('node_modules/'))
  .filter((file) => existsSync(join(ROOT, file)));

/** The `§n` sections and `Hn`/`Fn`/`Xn` labels a document defines. */
function anchorsOf(doc: string): Set<string> {
  const anchors = new Set<string>();
  const text = readFileSync(join(ROOT, doc), 'utf8');
  for (const [, section] of text.matchAll(/^#{2,3} (§\d+)\b/gm)) anchors.add(section!);
  for (const [, label] of text.matchAll(/^(?:#{2,4} |\| )([HFX]\d+)\b/gm)) anchors.add(label!);
  return anchors;
}

const anchors = new Map<string, Set<string>>();
const anchorsFor = (doc: string) => {
  if (!anchors.has(doc)) anchors.set(doc, existsSync(join(ROOT, doc)) ? anchorsOf(doc) : new Set());
  return anchors.get(doc)!;
};

// `docs/x.md §3`, `docs/x.md §1, §7`, `docs/security.md H14, H21`, `docs/security.md F1/F2`,
// `docs/security.md H15–H16`, `docs/security.md X2, X3 and X8`, `docs/x.md §3's`.
const CITATION = /(docs\/[\w-]+\.md)((?:(?:\s*(?:,|\/|–|and)\s*|\s+)(?:§\d+|[HFX]\d+)\b)+)/g;

it('no file cites a document outside the repository', () => {
  const problems: string[] = [];
  // The tests under test/docs name what they look for.
  for (const file of files.filter((name) => !name.startsWith('test/docs/'))) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, index) => {
      const where = `${file}:${index + 1}`;
      if (/DESIGN(\.md)? ?§/.test(line)) problems.push(`${where}: cites DESIGN §`);
      if (/security notes/i.test(line)) problems.push(`${where}: cites the security notes`);
      if (/\.\.\/shared\b|(^|[\s(`'"])shared\/(notes|DESIGN)/.test(line))
        problems.push(`${where}: points into ../shared`);
      if (/(^|[\s(`'"])notes\/[\w-]+\.md|\bdeps notes\b/.test(line))
        problems.push(`${where}: cites notes kept outside the repository`);
    });
  }
  expect(problems).toEqual([]);
});

it('every docs/*.md §n or label citation names a section or label the document has', () => {
  const problems: string[] = [];
  let cited = 0;
  for (const file of files) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, index) => {
      for (const [, doc, refs] of line.matchAll(CITATION)) {
        const have = anchorsFor(doc!);
        for (const [ref] of refs!.matchAll(/§\d+|[HFX]\d+/g)) {
          cited++;
          if (!existsSync(join(ROOT, doc!))) problems.push(`${file}:${index + 1}: ${doc} does not exist`);
          else if (!have.has(ref)) problems.push(`${file}:${index + 1}: ${doc} has no ${ref}`);
        }
      }
    });
  }
  expect(problems).toEqual([]);
  expect(cited).toBeGreaterThan(100);
});

it('the sections the citations rely on exist', () => {
  const architecture = anchorsFor('docs/architecture.md');
  for (let n = 1; n <= 12; n++) expect(architecture.has(`§${n}`)).toBe(true);
  const security = anchorsFor('docs/security.md');
  for (const label of ['H1', 'H3', 'H9', 'H16', 'H17', 'H21', 'H23', 'F1', 'F7', 'X1', 'X11', '§5']) {
    expect(security.has(label), label).toBe(true);
  }
});
