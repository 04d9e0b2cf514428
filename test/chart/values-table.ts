// The chart README's values table, generated from charts/svc/values.yaml: a key preceded by a `# --`
// comment (continued by further `#` lines) is one row — its full path, its default, the comment — and
// everything nested under it belongs to that row. A value with no documented key on its path is an error,
// so every value the chart has is in the table.
import { parse } from 'yaml';

export interface ValueRow {
  key: string;
  default: unknown;
  description: string;
}

export function valueRows(text: string): { rows: ValueRow[]; undocumented: string[] } {
  const values = parse(text) as Record<string, unknown>;
  const rows: ValueRow[] = [];
  const stack: { indent: number; key: string }[] = [];
  let pending: string[] | undefined;
  let documentedIndent: number | undefined;
  for (const line of text.split('\n')) {
    const indent = line.length - line.trimStart().length;
    const trimmed = line.trim();
    if (documentedIndent !== undefined && trimmed && indent > documentedIndent) continue; // inside a documented value
    documentedIndent = undefined;
    if (trimmed.startsWith('# --')) {
      pending = [trimmed.slice(4).trim()];
      continue;
    }
    if (pending && trimmed.startsWith('#')) {
      pending.push(trimmed.slice(1).trim());
      continue;
    }
    const key = /^([A-Za-z0-9_.-]+):(\s|$)/.exec(trimmed)?.[1];
    if (!key || trimmed.startsWith('-')) {
      if (!trimmed) pending = undefined;
      continue;
    }
    while (stack.length && stack.at(-1)!.indent >= indent) stack.pop();
    stack.push({ indent, key });
    if (pending) {
      const path = stack.map((entry) => entry.key);
      rows.push({
        key: path.join('.'),
        default: path.reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], values),
        description: pending.join(' '),
      });
      pending = undefined;
      documentedIndent = indent;
    }
  }
  const documented = new Set(rows.map((row) => row.key));
  const undocumented: string[] = [];
  const visit = (node: unknown, path: string[]) => {
    if (path.length && documented.has(path.join('.'))) return;
    if (node && typeof node === 'object' && !Array.isArray(node) && Object.keys(node).length) {
      for (const [key, child] of Object.entries(node)) visit(child, [...path, key]);
    } else {
      undocumented.push(path.join('.'));
    }
  };
  visit(values, []);
  return { rows, undocumented };
}

export function valuesTable(rows: ValueRow[]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    '| Key | Default | Description |',
    '| --- | --- | --- |',
    ...rows.map((row) => `| \`${row.key}\` | \`${cell(JSON.stringify(row.default))}\` | ${cell(row.description)} |`),
  ].join('\n');
}
