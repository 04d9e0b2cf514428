// Reads a `svc launch` configuration: YAML with source positions, `${VAR}` interpolation from the
// environment and `secrets:<VAR>` from the sibling `svc.secrets` file (KEY=value lines), then the schema of
// protocol/launch-config.ts and the cross-field rules. Every problem is reported at once, each as
// `<file>:<line>:<column>: <key path>: <what was expected>`. Legal but likely wrong settings become warnings.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseEnv } from 'node:util';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { Compile } from 'typebox/compile';
import { identifierProblem, LaunchConfig, LaunchShipConfig } from '../../protocol/index.js';
import { sessionEnvProblem } from '../../protocol/session-env.js';

const checkConfig = Compile(LaunchConfig);
const checkShip = Compile(LaunchShipConfig);
export const SECRETS_FILE = 'svc.secrets';

type Path = Array<string | number>;

/** Orders `<file>:<line>:<col>: …` lines by position. */
const byPosition = (a: string, b: string) => {
  const position = (line: string) =>
    (/:(\d+):(\d+): /.exec(line) ?? ['', '0', '0']).slice(1).map(Number) as [number, number];
  const [la, ca] = position(a);
  const [lb, cb] = position(b);
  return la - lb || ca - cb;
};

export class LaunchConfigError extends Error {
  constructor(readonly problems: string[]) {
    problems = [...problems].sort(byPosition);
    super(
      `the launch configuration has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}:\n  ${problems.join('\n  ')}`,
    );
  }
}

export interface LoadedLaunchConfig {
  config: LaunchConfig;
  warnings: string[];
  /** The directory relative paths in the file are resolved against. */
  directory: string;
}

const describe = (path: Path) => (path.length ? path.join('.') : '(top level)');

export function loadLaunchConfig(file: string, env: NodeJS.ProcessEnv = process.env): LoadedLaunchConfig {
  const text = readFileSync(file, 'utf8');
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const problems: string[] = [];
  const at = (path: Path, message: string) => {
    const offset = nodeOffset(doc, path);
    const { line, col } = lines.linePos(offset);
    problems.push(`${file}:${line}:${col}: ${describe(path)}: ${message}`);
  };
  for (const error of doc.errors) {
    const { line, col } = lines.linePos(error.pos[0]);
    problems.push(`${file}:${line}:${col}: ${error.message.split('\n')[0]}`);
  }
  if (problems.length) throw new LaunchConfigError(problems);

  const directory = dirname(file);
  const raw = (doc.toJS() ?? {}) as unknown;
  let secrets: Record<string, string> | null = null;
  const readSecrets = () => {
    if (secrets) return secrets;
    const path = join(directory, SECRETS_FILE);
    secrets = existsSync(path) ? (parseEnv(readFileSync(path, 'utf8')) as Record<string, string>) : {};
    return secrets;
  };
  const resolved = resolveValues(raw, [], (value, path) => {
    const secret = /^secrets:(.*)$/.exec(value);
    if (secret) {
      const name = secret[1]!;
      const found = readSecrets()[name];
      if (!found)
        at(path, `secrets:${name} is ${found === '' ? 'empty' : 'not set'} in ${join(directory, SECRETS_FILE)}`);
      return found ?? '';
    }
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
      const found = env[name];
      if (!found) at(path, `\${${name}} is ${found === '' ? 'empty' : 'not set'} in the environment`);
      return found ?? '';
    });
  });

  for (const error of schemaProblems(resolved)) at(error.path, error.message);
  if (problems.length) throw new LaunchConfigError(problems);
  const config = resolved as LaunchConfig;
  const warnings: string[] = [];
  crossFieldChecks(config, at, (path, message) => {
    const { line, col } = lines.linePos(nodeOffset(doc, path));
    warnings.push(`${file}:${line}:${col}: ${describe(path)}: ${message}`);
  });
  if (problems.length) throw new LaunchConfigError(problems);
  return { config, warnings, directory };
}

/**
 * Where to point for `path`: the key of its pair when it exists (reads best for "unknown key"), else the
 * key of its nearest existing parent (a missing key is reported at the entry that lacks it).
 */
function nodeOffset(doc: Document, path: Path): number {
  for (let length = path.length; length > 0; length--) {
    const parent = length > 1 ? doc.getIn(path.slice(0, length - 1), true) : doc.contents;
    if (!isMap(parent)) continue;
    const pair = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === String(path[length - 1]));
    if (pair && isScalar(pair.key) && pair.key.range) return pair.key.range[0];
  }
  const root = doc.contents as { range?: number[] } | null;
  return root?.range?.[0] ?? 0;
}

function resolveValues(value: unknown, path: Path, resolve: (value: string, path: Path) => string): unknown {
  if (typeof value === 'string') return resolve(value, path);
  if (Array.isArray(value)) return value.map((item, index) => resolveValues(item, [...path, index], resolve));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolveValues(item, [...path, key], resolve)]),
    );
  }
  return value;
}

interface SchemaProblem {
  path: Path;
  message: string;
}

/**
 * The schema's findings in words, one per key (alternatives of a union merged into one line). Each ship
 * entry is checked on its own: the validator stops at the first failing entry of a map.
 */
function schemaProblems(value: unknown): SchemaProblem[] {
  const ships =
    value && typeof value === 'object' && !Array.isArray(value) ? (value as { ships?: unknown }).ships : undefined;
  if (!ships || typeof ships !== 'object' || Array.isArray(ships)) return describeErrors(checkConfig.Errors(value), []);
  const problems = describeErrors(checkConfig.Errors({ ...(value as object), ships: {} }), []);
  for (const [key, entry] of Object.entries(ships))
    problems.push(...describeErrors(checkShip.Errors(entry), ['ships', key]));
  return problems;
}

function describeErrors(
  errors: Iterable<{ keyword: string; instancePath: string; params: unknown; message: string }>,
  prefix: Path,
): SchemaProblem[] {
  const found = new Map<string, SchemaProblem>();
  const allowed = new Map<string, unknown[]>();
  for (const error of errors) {
    const path = [
      ...prefix,
      ...error.instancePath
        .split('/')
        .slice(1)
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~')),
    ];
    const key = path.join('\u0000');
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'boolean':
        found.set(key, { path, message: 'unknown key' });
        break;
      case 'additionalProperties':
        break; // reported per key by 'boolean'
      case 'required':
        for (const name of (params.requiredProperties as string[] | undefined) ?? []) {
          const child = [...path, name];
          found.set(child.join('\u0000'), { path: child, message: 'required' });
        }
        break;
      case 'const':
        allowed.set(key, [...(allowed.get(key) ?? []), params.allowedValue]);
        found.set(key, {
          path,
          message: `expected one of ${allowed
            .get(key)!
            .map((v) => JSON.stringify(v))
            .join(', ')}`,
        });
        break;
      case 'anyOf':
        break;
      case 'type':
        found.set(key, { path, message: `expected ${article(String(params.type))}` });
        break;
      case 'minimum':
      case 'maximum':
        found.set(key, {
          path,
          message:
            `expected a number ${error.keyword === 'minimum' ? '≥' : '≤'} ${String(params.limit ?? params.comparison ?? '')}`.trim(),
        });
        break;
      case 'minLength':
        found.set(key, { path, message: 'expected a non-empty string' });
        break;
      default:
        if (!found.has(key)) found.set(key, { path, message: error.message });
    }
  }
  return [...found.values()];
}

const article = (type: string) =>
  type === 'integer' ? 'an integer' : type === 'object' ? 'a mapping' : type === 'array' ? 'a list' : `a ${type}`;

function crossFieldChecks(
  config: LaunchConfig,
  problem: (path: Path, message: string) => void,
  warn: (path: Path, message: string) => void,
): void {
  const bridge = config.bridge ?? {};
  const names = new Map<string, string>();
  const ports = new Map<number, string>([[bridge.port ?? 4800, 'bridge.port']]);
  let remote = false;
  if (bridge.name && identifierProblem(bridge.name))
    problem(['bridge', 'name'], `expected an identifier (${identifierProblem(bridge.name)})`);
  if (bridge.publicUrl && !/^https?:\/\//i.test(bridge.publicUrl))
    warn(['bridge', 'publicUrl'], 'is not an http(s) URL: ships and browsers will not reach the bridge there');
  for (const [key, ship] of Object.entries(config.ships ?? {})) {
    const path = ['ships', key];
    if ((ship.shipToken === undefined) !== (ship.bridgeToken === undefined)) {
      problem(
        [...path, ship.shipToken === undefined ? 'bridgeToken' : 'shipToken'],
        'shipToken and bridgeToken are given together or not at all',
      );
    }
    for (const token of ['shipToken', 'bridgeToken'] as const)
      if (ship[token] === '') problem([...path, token], 'is empty');
    if (ship.source === 'remote') {
      remote = true;
      if (!ship.url) problem([...path, 'url'], 'required for a remote ship');
      else if (!/^https?:\/\//i.test(ship.url)) problem([...path, 'url'], 'expected an http(s) URL');
      else if (/^http:\/\//i.test(ship.url) && !/^http:\/\/(localhost|127\.|\[::1\])/i.test(ship.url)) {
        warn([...path, 'url'], 'plain http to another host: the bridge token travels unencrypted');
      }
      for (const local of ['fleetDirectory', 'port', 'name'] as const)
        if (ship[local] !== undefined) problem([...path, local], 'only for local ships (a remote ship names itself)');
      if (ship.sessionEnv !== undefined)
        problem(
          [...path, 'sessionEnv'],
          'only for local ships (a remote ship takes SVC_SESSION_ENV from its own environment)',
        );
      continue;
    }
    if (ship.url !== undefined) problem([...path, 'url'], 'only for remote ships');
    for (const variable of Object.keys(ship.sessionEnv ?? {})) {
      const refused = sessionEnvProblem(variable);
      if (refused) problem([...path, 'sessionEnv', variable], refused);
    }
    const name = ship.name ?? key;
    const nameProblem = identifierProblem(name);
    if (nameProblem)
      problem(
        [...path, ship.name ? 'name' : ''].filter(Boolean),
        `expected an identifier as the ship name (${nameProblem})`,
      );
    if (names.has(name)) problem([...path, 'name'], `ship name "${name}" is also used by ${names.get(name)}`);
    names.set(name, path.join('.'));
    if (ship.port !== undefined) {
      if (ports.has(ship.port)) problem([...path, 'port'], `port ${ship.port} is also used by ${ports.get(ship.port)}`);
      ports.set(ship.port, `${path.join('.')}.port`);
    }
  }
  if (remote && !bridge.publicUrl)
    warn(
      ['bridge', 'publicUrl'],
      'not set while remote ships are configured: they will be told http://localhost:<port>, which they cannot reach',
    );
}
