// A small subset of CEL, enough for the `x-kubernetes-validations` rules CRDs commonly carry (`has(self.x)`,
// comparisons, `&&`/`||`/`!`/`?:`, `in`, arithmetic, `size()`, string `startsWith`/`endsWith`/`contains`/
// `matches`/`lowerAscii`/`upperAscii`/`trim`, `bytes()` (UTF-8, so `size(bytes(s))` counts bytes), list and map literals, `all`/`exists`/`exists_one`/`map`/
// `filter`, and `oldSelf` in transition rules). Evaluation follows CEL where it matters for validation:
// a missing field is a "no such key" error unless guarded by has(), and `&&`/`||` absorb an error when the
// other side decides. An expression outside the subset throws CelUnsupported; the caller then skips the
// rule (reported, never a false rejection) rather than guess.

export class CelUnsupported extends Error {}
export class CelError extends Error {}

type Node =
  | { kind: 'literal'; value: unknown }
  | { kind: 'ident'; name: string }
  | { kind: 'select'; target: Node; field: string }
  | { kind: 'index'; target: Node; index: Node }
  | { kind: 'call'; name: string; target?: Node; args: Node[] }
  | { kind: 'unary'; op: string; operand: Node }
  | { kind: 'binary'; op: string; left: Node; right: Node }
  | { kind: 'ternary'; condition: Node; then: Node; otherwise: Node }
  | { kind: 'list'; items: Node[] }
  | { kind: 'map'; entries: Array<[Node, Node]> };

type Token = { type: 'num' | 'str' | 'ident' | 'op'; value: string | number };

const OPERATORS = [
  '&&',
  '||',
  '==',
  '!=',
  '<=',
  '>=',
  '<',
  '>',
  '!',
  '?',
  ':',
  '+',
  '-',
  '*',
  '/',
  '%',
  '.',
  ',',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (/\s/.test(char)) {
      at++;
      continue;
    }
    const number = /^(0x[0-9a-fA-F]+|\d+\.\d+(?:[eE][+-]?\d+)?|\d+)[uU]?/.exec(text.slice(at));
    if (number) {
      tokens.push({ type: 'num', value: Number(number[1]) });
      at += number[0].length;
      continue;
    }
    if (
      char === '"' ||
      char === "'" ||
      ((char === 'r' || char === 'R') && (text[at + 1] === '"' || text[at + 1] === "'"))
    ) {
      const raw = char === 'r' || char === 'R';
      const quote = text[raw ? at + 1 : at]!;
      if (text.startsWith(quote.repeat(3), raw ? at + 1 : at)) throw new CelUnsupported('triple-quoted strings');
      let index = raw ? at + 2 : at + 1;
      let value = '';
      while (index < text.length && text[index] !== quote) {
        if (text[index] === '\\' && !raw) {
          const next = text[index + 1]!;
          value +=
            ({ n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' } as Record<string, string>)[next] ??
            `\\${next}`;
          index += 2;
        } else {
          value += text[index++];
        }
      }
      if (index >= text.length) throw new CelUnsupported('unterminated string');
      tokens.push({ type: 'str', value });
      at = index + 1;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at));
    if (ident) {
      tokens.push({ type: 'ident', value: ident[0] });
      at += ident[0].length;
      continue;
    }
    const op = OPERATORS.find((candidate) => text.startsWith(candidate, at));
    if (!op) throw new CelUnsupported(`unexpected ${JSON.stringify(char)}`);
    tokens.push({ type: 'op', value: op });
    at += op.length;
  }
  return tokens;
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Node {
    const node = this.ternary();
    if (this.at < this.tokens.length) throw new CelUnsupported(`unexpected ${String(this.tokens[this.at]!.value)}`);
    return node;
  }

  private peek(value: string): boolean {
    const token = this.tokens[this.at];
    return token !== undefined && (token.type === 'op' || token.type === 'ident') && token.value === value;
  }

  private take(value: string): boolean {
    if (!this.peek(value)) return false;
    this.at++;
    return true;
  }

  private expect(value: string): void {
    if (!this.take(value)) throw new CelUnsupported(`expected ${value}`);
  }

  private ternary(): Node {
    const condition = this.binary(0);
    if (!this.take('?')) return condition;
    const then = this.ternary();
    this.expect(':');
    return { kind: 'ternary', condition, then, otherwise: this.ternary() };
  }

  private static readonly LEVELS = [
    ['||'],
    ['&&'],
    ['==', '!=', '<', '<=', '>', '>=', 'in'],
    ['+', '-'],
    ['*', '/', '%'],
  ];

  private binary(level: number): Node {
    if (level >= Parser.LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const op = Parser.LEVELS[level]!.find((candidate) => this.peek(candidate));
      if (!op) return left;
      this.at++;
      left = { kind: 'binary', op, left, right: this.binary(level + 1) };
    }
  }

  private unary(): Node {
    if (this.take('!')) return { kind: 'unary', op: '!', operand: this.unary() };
    if (this.take('-')) return { kind: 'unary', op: '-', operand: this.unary() };
    return this.member();
  }

  private args(close: string): Node[] {
    const args: Node[] = [];
    if (this.take(close)) return args;
    do args.push(this.ternary());
    while (this.take(','));
    this.expect(close);
    return args;
  }

  private member(): Node {
    let node = this.primary();
    for (;;) {
      if (this.take('.')) {
        const token = this.tokens[this.at++];
        if (token?.type !== 'ident') throw new CelUnsupported('expected a field name');
        node = this.take('(')
          ? { kind: 'call', name: String(token.value), target: node, args: this.args(')') }
          : { kind: 'select', target: node, field: String(token.value) };
      } else if (this.take('[')) {
        node = { kind: 'index', target: node, index: this.ternary() };
        this.expect(']');
      } else {
        return node;
      }
    }
  }

  private primary(): Node {
    const token = this.tokens[this.at++];
    if (!token) throw new CelUnsupported('unexpected end');
    if (token.type === 'num' || token.type === 'str') return { kind: 'literal', value: token.value };
    if (token.type === 'ident') {
      if (token.value === 'true' || token.value === 'false') return { kind: 'literal', value: token.value === 'true' };
      if (token.value === 'null') return { kind: 'literal', value: null };
      if (this.take('(')) return { kind: 'call', name: String(token.value), args: this.args(')') };
      return { kind: 'ident', name: String(token.value) };
    }
    if (token.value === '(') {
      const node = this.ternary();
      this.expect(')');
      return node;
    }
    if (token.value === '[') return { kind: 'list', items: this.args(']') };
    if (token.value === '{') {
      const entries: Array<[Node, Node]> = [];
      if (!this.take('}')) {
        do {
          const key = this.ternary();
          this.expect(':');
          entries.push([key, this.ternary()]);
        } while (this.take(','));
        this.expect('}');
      }
      return { kind: 'map', entries };
    }
    throw new CelUnsupported(`unexpected ${String(token.value)}`);
  }
}

export function parseCel(expression: string): Node {
  return new Parser(tokenize(expression)).parse();
}

type Scope = Record<string, unknown>;
const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const equal = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function select(target: unknown, field: string): unknown {
  if (!isMap(target)) throw new CelError(`no such key: ${field}`);
  if (!(field in target)) throw new CelError(`no such key: ${field}`);
  return target[field];
}

function size(value: unknown): number {
  if (typeof value === 'string') return [...value].length;
  if (value instanceof Uint8Array) return value.length;
  if (Array.isArray(value)) return value.length;
  if (isMap(value)) return Object.keys(value).length;
  throw new CelError('no such overload: size');
}

function macro(name: string, target: unknown, args: Node[], scope: Scope): unknown {
  const variable = args[0]?.kind === 'ident' ? args[0].name : undefined;
  if (!variable || args.length !== 2) throw new CelUnsupported(`${name} needs a variable and an expression`);
  const items = Array.isArray(target) ? target : isMap(target) ? Object.keys(target) : undefined;
  if (!items) throw new CelError(`no such overload: ${name}`);
  const run = (item: unknown) => evaluate(args[1]!, { ...scope, [variable]: item });
  switch (name) {
    case 'all':
      return items.every((item) => run(item) === true);
    case 'exists':
      return items.some((item) => run(item) === true);
    case 'exists_one':
      return items.filter((item) => run(item) === true).length === 1;
    case 'map':
      return items.map(run);
    case 'filter':
      return items.filter((item) => run(item) === true);
  }
  throw new CelUnsupported(name);
}

function call(node: Extract<Node, { kind: 'call' }>, scope: Scope): unknown {
  if (node.name === 'has' && !node.target) {
    const argument = node.args[0];
    if (node.args.length !== 1 || argument?.kind !== 'select')
      throw new CelUnsupported('has() takes a field selection');
    const target = evaluate(argument.target, scope);
    return isMap(target) && argument.field in target;
  }
  if (node.target && ['all', 'exists', 'exists_one', 'map', 'filter'].includes(node.name))
    return macro(node.name, evaluate(node.target, scope), node.args, scope);
  const receiver = node.target ? evaluate(node.target, scope) : undefined;
  const args = node.args.map((arg) => evaluate(arg, scope));
  const text = (value: unknown) => {
    if (typeof value !== 'string') throw new CelError(`no such overload: ${node.name}`);
    return value;
  };
  switch (node.name) {
    case 'size':
      return size(node.target ? receiver : args[0]);
    case 'startsWith':
      return text(receiver).startsWith(text(args[0]));
    case 'endsWith':
      return text(receiver).endsWith(text(args[0]));
    case 'contains':
      return text(receiver).includes(text(args[0]));
    case 'matches':
      return new RegExp(text(args[0]), 'u').test(text(receiver));
    case 'lowerAscii':
      return text(receiver).toLowerCase();
    case 'upperAscii':
      return text(receiver).toUpperCase();
    case 'trim':
      return text(receiver).trim();
    case 'int':
      return Math.trunc(Number(args[0]));
    case 'double':
      return Number(args[0]);
    case 'string':
      return args[0] instanceof Uint8Array ? Buffer.from(args[0]).toString('utf8') : String(args[0]);
    case 'bytes':
      return new Uint8Array(Buffer.from(text(args[0]), 'utf8'));
  }
  throw new CelUnsupported(`function ${node.name}`);
}

function arithmetic(op: string, left: unknown, right: unknown): unknown {
  if (op === '+' && typeof left === 'string' && typeof right === 'string') return left + right;
  if (op === '+' && Array.isArray(left) && Array.isArray(right)) return [...left, ...right];
  if (typeof left !== 'number' || typeof right !== 'number') throw new CelError(`no such overload: ${op}`);
  if ((op === '/' || op === '%') && right === 0)
    throw new CelError(op === '/' ? 'division by zero' : 'modulus by zero');
  switch (op) {
    case '+':
      return left + right;
    case '-':
      return left - right;
    case '*':
      return left * right;
    case '/':
      return Number.isInteger(left) && Number.isInteger(right) ? Math.trunc(left / right) : left / right;
    default:
      return left % right;
  }
}

function compare(op: string, left: unknown, right: unknown): boolean {
  if (typeof left !== typeof right || (typeof left !== 'number' && typeof left !== 'string'))
    throw new CelError(`no such overload: ${op}`);
  const a = left as number | string;
  const b = right as number | string;
  return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
}

/** A CEL value, or CelError for a runtime error (absorbed by && and || where CEL absorbs it). */
export function evaluate(node: Node, scope: Scope): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'ident':
      if (!(node.name in scope)) throw new CelUnsupported(`identifier ${node.name}`);
      return scope[node.name];
    case 'select':
      return select(evaluate(node.target, scope), node.field);
    case 'index': {
      const target = evaluate(node.target, scope);
      const index = evaluate(node.index, scope);
      if (Array.isArray(target) && typeof index === 'number') {
        if (index < 0 || index >= target.length) throw new CelError(`index out of bounds: ${index}`);
        return target[index];
      }
      return select(target, String(index));
    }
    case 'call':
      return call(node, scope);
    case 'list':
      return node.items.map((item) => evaluate(item, scope));
    case 'map':
      return Object.fromEntries(
        node.entries.map(([key, value]) => [String(evaluate(key, scope)), evaluate(value, scope)]),
      );
    case 'unary': {
      const value = evaluate(node.operand, scope);
      if (node.op === '!') {
        if (typeof value !== 'boolean') throw new CelError('no such overload: !');
        return !value;
      }
      if (typeof value !== 'number') throw new CelError('no such overload: -');
      return -value;
    }
    case 'ternary': {
      const condition = evaluate(node.condition, scope);
      if (typeof condition !== 'boolean') throw new CelError('no such overload: ?:');
      return evaluate(condition ? node.then : node.otherwise, scope);
    }
    case 'binary': {
      if (node.op === '&&' || node.op === '||') {
        const decisive = node.op === '||';
        const side = (operand: Node): boolean | CelError => {
          try {
            const value = evaluate(operand, scope);
            if (typeof value !== 'boolean') return new CelError(`no such overload: ${node.op}`);
            return value;
          } catch (error) {
            if (error instanceof CelError) return error;
            throw error;
          }
        };
        const left = side(node.left);
        if (left === decisive) return decisive;
        const right = side(node.right);
        if (right === decisive) return decisive;
        if (left instanceof CelError) throw left;
        if (right instanceof CelError) throw right;
        return !decisive;
      }
      const left = evaluate(node.left, scope);
      const right = evaluate(node.right, scope);
      switch (node.op) {
        case '==':
          return equal(left, right);
        case '!=':
          return !equal(left, right);
        case 'in':
          if (Array.isArray(right)) return right.some((item) => equal(item, left));
          if (isMap(right)) return String(left) in right;
          throw new CelError('no such overload: in');
        case '<':
        case '<=':
        case '>':
        case '>=':
          return compare(node.op, left, right);
        default:
          return arithmetic(node.op, left, right);
      }
    }
  }
}

/** Whether `rule` holds for `self` (and `oldSelf` when given). Throws CelError or CelUnsupported. */
export function checkRule(rule: string, self: unknown, oldSelf?: { value: unknown }): boolean {
  const node = parseCel(rule);
  const result = evaluate(node, oldSelf ? { self, oldSelf: oldSelf.value } : { self });
  if (typeof result !== 'boolean') throw new CelError('rule did not evaluate to a bool');
  return result;
}

/** Whether the rule mentions oldSelf (a transition rule: checked on update only, when an old value exists). */
export function isTransitionRule(rule: string): boolean {
  return /\boldSelf\b/.test(rule);
}
