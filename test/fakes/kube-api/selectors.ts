// Label and field selectors as list and watch take them. Labels: `a=b`, `a==b`, `a!=b`, `a`, `!a`,
// `a in (x,y)`, `a notin (x,y)`, comma-joined (all must hold). Fields: `path=value`, `path==value`,
// `path!=value`, comma-joined, for metadata.name, metadata.namespace and the fields the resource declares
// (resources.ts); any other field is a 400, as the apiserver refuses field labels it does not index.
import { errors } from './errors.js';
import type { KubeObject, ResourceType } from './resources.js';

export type Selector = (object: KubeObject) => boolean;

type LabelRequirement = { key: string; op: 'in' | 'notin' | 'exists' | '!exists'; values: string[] };

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (current.trim()) parts.push(current);
  return parts.map((part) => part.trim()).filter(Boolean);
}

export function parseLabelSelector(text: string | null): Selector {
  if (!text) return () => true;
  const requirements: LabelRequirement[] = splitTopLevel(text).map((part) => {
    let match = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(part);
    if (match)
      return {
        key: match[1]!,
        op: match[2] as 'in' | 'notin',
        values: match[3]!
          .split(',')
          .map((value) => value.trim())
          .filter(Boolean),
      };
    match = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(part);
    if (match) return { key: match[1]!, op: match[2] === '!=' ? 'notin' : 'in', values: [match[3]!] };
    match = /^(!?)([\w./-]+)$/.exec(part);
    if (match) return { key: match[2]!, op: match[1] ? '!exists' : 'exists', values: [] };
    throw errors.badRequest(`unable to parse requirement: found '${part}', expected: in, notin, =, ==, !=, gt, lt`);
  });
  return (object) => {
    const labels = object.metadata.labels ?? {};
    return requirements.every((requirement) => {
      const has = Object.hasOwn(labels, requirement.key);
      switch (requirement.op) {
        case 'exists':
          return has;
        case '!exists':
          return !has;
        case 'in':
          return has && requirement.values.includes(labels[requirement.key]!);
        default: // 'notin'
          return !has || !requirement.values.includes(labels[requirement.key]!);
      }
    });
  };
}

function fieldValue(object: KubeObject, path: string): string {
  let current: unknown = object;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return '';
    current = (current as Record<string, unknown>)[key];
  }
  return current === undefined || current === null ? '' : String(current);
}

export function parseFieldSelector(text: string | null, resource: ResourceType): Selector {
  if (!text) return () => true;
  const allowed = new Set(['metadata.name', 'metadata.namespace', ...resource.fieldSelectors]);
  const requirements = text
    .split(',')
    .filter(Boolean)
    .map((part) => {
      const match = /^([^=!]+)(==|=|!=)(.*)$/.exec(part.trim());
      if (!match) throw errors.badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
      const field = match[1]!.trim();
      if (!allowed.has(field)) throw errors.badRequest(`field label not supported: ${field}`);
      return { field, negate: match[2] === '!=', value: match[3]! };
    });
  return (object) =>
    requirements.every(
      (requirement) => (fieldValue(object, requirement.field) === requirement.value) !== requirement.negate,
    );
}
