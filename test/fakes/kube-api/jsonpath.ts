// The subset of Kubernetes JSONPath that CRD additionalPrinterColumns use: `.a.b`, `['a.b']`, `[0]`, `[*]`
// and filters `[?(@.type=="Ready")]` (==, != against a string or number; a bare `@.x` tests presence).
// Enough for printer columns such as `.status.conditions[?(@.type=="Ready")].status`; anything else is a
// parse error, as an unsupported path would be for a column the apiserver cannot evaluate.

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: string[]; op: '==' | '!=' | 'exists'; value?: string | number };

export function parseJsonPath(expression: string): Step[] {
  let text = expression.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
  if (text.startsWith('$')) text = text.slice(1);
  const steps: Step[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at];
    if (char === '.') {
      const match = /^\.([A-Za-z0-9_\-$]+)/.exec(text.slice(at));
      if (!match) throw new Error(`unsupported JSONPath ${expression}`);
      steps.push({ kind: 'field', name: match[1]! });
      at += match[0].length;
    } else if (char === '[') {
      const end = findClosingBracket(text, at);
      const inner = text.slice(at + 1, end).trim();
      at = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) steps.push(parseFilter(inner.slice(2, -1), expression));
      else throw new Error(`unsupported JSONPath ${expression}`);
    } else {
      throw new Error(`unsupported JSONPath ${expression}`);
    }
  }
  return steps;
}

function findClosingBracket(text: string, open: number): number {
  let quote: string | undefined;
  for (let at = open + 1; at < text.length; at++) {
    const char = text[at]!;
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === ']') {
      return at;
    }
  }
  throw new Error(`unbalanced [ in JSONPath ${text}`);
}

function parseFilter(filter: string, expression: string): Step {
  const match = /^@((?:\.[A-Za-z0-9_-]+)+)\s*(?:(==|!=)\s*(.+))?$/.exec(filter.trim());
  if (!match) throw new Error(`unsupported JSONPath filter in ${expression}`);
  const path = match[1]!.split('.').slice(1);
  if (!match[2]) return { kind: 'filter', path, op: 'exists' };
  const raw = match[3]!.trim();
  const value = /^'.*'$|^".*"$/.test(raw) ? raw.slice(1, -1) : Number(raw);
  return { kind: 'filter', path, op: match[2] as '==' | '!=', value };
}

function walk(value: unknown, path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Every value the path reaches (none when a step is missing). */
export function evaluateJsonPath(steps: Step[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      if (step.kind === 'field') {
        if (value !== null && typeof value === 'object' && !Array.isArray(value) && step.name in value)
          next.push((value as Record<string, unknown>)[step.name]);
      } else if (step.kind === 'index') {
        if (Array.isArray(value)) {
          const item = value[step.index < 0 ? value.length + step.index : step.index];
          if (item !== undefined) next.push(item);
        }
      } else if (step.kind === 'all') {
        if (Array.isArray(value)) next.push(...value);
        else if (value !== null && typeof value === 'object') next.push(...Object.values(value));
      } else if (Array.isArray(value)) {
        for (const item of value) {
          const field = walk(item, step.path);
          const keep =
            step.op === 'exists'
              ? field !== undefined
              : (step.op === '==') ===
                (field === step.value || (field !== undefined && String(field) === String(step.value)));
          if (keep) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}
