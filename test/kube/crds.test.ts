// The Ship and Repo CRDs (issue #19): crds/*.yaml is what operator/crds/generate.ts prints from the TypeBox
// schemas in operator/resources/ (rewrite with `SVC_UPDATE_CRDS=1 npx vitest run test/kube/crds.test.ts`),
// the schemas are structural by the API server's rules (checked here on the YAML, independently of the
// generator's own guard), and crds/examples/ validate against them while broken objects do not.
//
// Validation runs Ajv (present through fastify; not a dependency of ours) on the openAPIV3Schema with the
// `x-kubernetes-*` extensions stripped, defaults applied and unknown fields refused, as `kubectl apply`
// with strict field validation does. No CEL library is installed, so the CEL rules are pinned as text (one
// table below, with their field references checked to exist) and evaluated with the CEL subset the fake
// API server carries (test/fakes/kube-api/cel.ts): what it says here is what the fake enforces in the
// operator's tests, but it is not cel-go, so a rule's behaviour on a real API server is not proven here.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { checkRule, isTransitionRule } from '../fakes/kube-api/cel.js';
import { crdFiles, customResourceDefinition } from '../../operator/crds/generate.js';
import { StructuralSchemaError, toStructural } from '../../operator/crds/structural.js';
import {
  CATEGORY,
  GROUP,
  REPO,
  SHIP,
  SHIP_NAME_MAX_LENGTH,
  TOKEN_KEYS,
  VERSION,
} from '../../operator/resources/index.js';

const CRDS = resolve(import.meta.dirname, '../../crds');
const EXAMPLES = join(CRDS, 'examples');
const update = process.env.SVC_UPDATE_CRDS === '1';

type Node = { [key: string]: unknown };
interface Crd {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      subresources?: { status?: object };
      additionalPrinterColumns: Array<{ name: string; type: string; jsonPath: string; priority?: number }>;
      schema: { openAPIV3Schema: Node };
    }>;
  };
}

function committed(file: string): Crd {
  return parse(readFileSync(join(CRDS, file), 'utf8')) as Crd;
}
const shipCrd = () => committed('ships.svc.dev.yaml');
const repoCrd = () => committed('repos.svc.dev.yaml');
const schemaOf = (crd: Crd) => crd.spec.versions[0]!.schema.openAPIV3Schema;

describe('crds/*.yaml are generated', () => {
  it('each committed CRD equals what the generator prints from operator/resources/, and there is no other', () => {
    const files = crdFiles();
    for (const [file, text] of files) {
      const path = join(CRDS, file);
      if (update) writeFileSync(path, text);
      expect(
        existsSync(path) ? readFileSync(path, 'utf8') : '(missing)',
        `crds/${file} is stale: rewrite it with SVC_UPDATE_CRDS=1 npx vitest run test/kube/crds.test.ts`,
      ).toBe(text);
    }
    expect(
      readdirSync(CRDS)
        .filter((name) => /\.ya?ml$/.test(name))
        .sort(),
    ).toEqual([...files.keys()].sort());
  });

  it('the generator refuses TypeBox a structural schema cannot hold, naming the path', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      [
        'a union of two types',
        Type.Object({ a: Type.Union([Type.String(), Type.Number()]) }),
        /^\.a\.anyOf\[0\]: only a union of literals/,
      ],
      [
        'a record (patternProperties)',
        Type.Object({ labels: Type.Record(Type.String(), Type.String()) }),
        /^\.labels: "patternProperties" is not supported/,
      ],
      ['a reference', Type.Object({ a: Type.Ref('Other') }), /^\.a: "\$ref" is not supported/],
      ['an untyped node', Type.Object({ a: Type.Unknown() }), /^\.a: every node needs a type/],
      ['an object without properties', Type.Object({ a: Type.Object({}) }), /^\.a: an object needs properties/],
      [
        'a type inside not',
        Type.String({ not: { type: 'string', enum: ['x'] } }),
        /^\.not: "type" is not a value validation/,
      ],
      [
        'a list map whose key is optional',
        Type.Array(Type.Object({ k: Type.Optional(Type.String()) }), {
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k'],
        }),
        /list map needs map keys its items require/,
      ],
    ];
    for (const [what, schema, message] of cases) {
      expect(() => toStructural(schema), what).toThrow(StructuralSchemaError);
      expect(() => toStructural(schema), what).toThrow(message);
    }
    // …and rewrites what it can: literal unions and untyped enums become typed enums.
    expect(toStructural(Type.Union([Type.Literal('a'), Type.Literal('b')], { default: 'a' }))).toEqual({
      type: 'string',
      enum: ['a', 'b'],
      default: 'a',
    });
    expect(toStructural(Type.Enum([1, 2]))).toEqual({ type: 'integer', enum: [1, 2] });
  });
});

// ---- structural-schema rules, checked on the committed YAML ----

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
const JUNCTORS = ['allOf', 'anyOf', 'oneOf', 'not'] as const;
const NEVER = [
  '$ref',
  '$schema',
  '$id',
  '$defs',
  'definitions',
  'const',
  'patternProperties',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'if',
  'then',
  'else',
  'prefixItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'examples',
];
/** Not allowed inside a logical junctor (structural rule 3). */
const NOT_IN_JUNCTOR = ['type', 'description', 'default', 'additionalProperties', 'nullable'];

/** Every problem that makes `schema` non-structural, as `path: problem`. */
function structuralProblems(schema: Node, path = '', inJunctor = false): string[] {
  const problems: string[] = [];
  const at = path || '<root>';
  for (const key of NEVER) if (key in schema) problems.push(`${at}: ${key}`);
  if (inJunctor) {
    for (const key of NOT_IN_JUNCTOR) if (key in schema) problems.push(`${at}: ${key} inside a junctor`);
    for (const key of Object.keys(schema))
      if (key.startsWith('x-kubernetes-')) problems.push(`${at}: ${key} inside a junctor`);
  } else {
    if (typeof schema.type !== 'string' || !TYPES.has(schema.type)) problems.push(`${at}: no type`);
    if (schema.type === 'object' && schema.properties && schema.additionalProperties !== undefined)
      problems.push(`${at}: properties and additionalProperties`);
    if (schema.additionalProperties === false) problems.push(`${at}: additionalProperties false`);
    if (schema.type === 'array' && !schema.items) problems.push(`${at}: array without items`);
    if ('enum' in schema && Array.isArray(schema.enum)) {
      for (const value of schema.enum)
        if (typeof value !== (schema.type === 'integer' ? 'number' : schema.type))
          problems.push(`${at}: enum value ${JSON.stringify(value)} is not a ${String(schema.type)}`);
      if ('default' in schema && !schema.enum.includes(schema.default)) problems.push(`${at}: default not in enum`);
    }
    if (schema['x-kubernetes-list-type'] === 'map') {
      const required = ((schema.items as Node | undefined)?.required as string[] | undefined) ?? [];
      for (const key of (schema['x-kubernetes-list-map-keys'] as string[] | undefined) ?? [])
        if (!required.includes(key)) problems.push(`${at}: list map key ${key} not required`);
    }
  }
  const properties = (schema.properties ?? {}) as Record<string, Node>;
  for (const name of (schema.required as string[] | undefined) ?? [])
    if (!(name in properties)) problems.push(`${at}: required ${name} is not a property`);
  for (const [name, child] of Object.entries(properties))
    problems.push(...structuralProblems(child, `${path}.${name}`, inJunctor));
  if (schema.items) problems.push(...structuralProblems(schema.items as Node, `${path}[*]`, inJunctor));
  if (typeof schema.additionalProperties === 'object')
    problems.push(...structuralProblems(schema.additionalProperties as Node, `${path}[*]`, inJunctor));
  for (const junctor of JUNCTORS) {
    const branches =
      junctor === 'not' ? (schema.not ? [schema.not as Node] : []) : ((schema[junctor] as Node[] | undefined) ?? []);
    for (const branch of branches) {
      problems.push(...structuralProblems(branch, `${path}.${junctor}`, true));
      // Structural rule 4: a field a junctor names must also be specified outside it.
      for (const name of Object.keys((branch.properties ?? {}) as Node))
        if (!(name in properties)) problems.push(`${at}: ${junctor} names ${name}, which is not specified outside it`);
    }
  }
  for (const rule of (schema['x-kubernetes-validations'] as Node[] | undefined) ?? []) {
    if (typeof rule.rule !== 'string' || rule.rule === '' || typeof rule.message !== 'string' || rule.message === '')
      problems.push(`${at}: a CEL rule without rule text or message`);
  }
  return problems;
}

/** `self.a.b` / `oldSelf.a.b` in each rule resolves in the node the rule sits on (a renamed field fails here). */
function danglingCelReferences(schema: Node, path = ''): string[] {
  const problems: string[] = [];
  for (const { rule } of (schema['x-kubernetes-validations'] as Array<{ rule: string }> | undefined) ?? []) {
    for (const match of rule.matchAll(/\b(?:self|oldSelf)((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
      let node: Node | undefined = schema;
      const segments = match[1]!.slice(1).split('.');
      // At the root, CEL sees metadata.name and metadata.generateName whatever the schema says of metadata.
      if (
        path === '' &&
        segments[0] === 'metadata' &&
        (segments[1] === 'name' || segments[1] === 'generateName') &&
        segments.length === 2
      )
        continue;
      for (const segment of segments) node = (node?.properties as Record<string, Node> | undefined)?.[segment];
      if (!node) problems.push(`${path || '<root>'}: ${match[0]} in "${rule}" names no field`);
    }
  }
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Node>))
    problems.push(...danglingCelReferences(child, `${path}.${name}`));
  if (schema.items) problems.push(...danglingCelReferences(schema.items as Node, `${path}[*]`));
  return problems;
}

/** Every CEL rule, by the path of the node it sits on. */
function celRules(schema: Node, path = ''): Array<[string, string, string]> {
  const rules: Array<[string, string, string]> = [];
  for (const { rule, message } of (schema['x-kubernetes-validations'] as
    | Array<{ rule: string; message: string }>
    | undefined) ?? [])
    rules.push([path || '<root>', rule, message]);
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Node>))
    rules.push(...celRules(child, `${path}.${name}`));
  if (schema.items) rules.push(...celRules(schema.items as Node, `${path}[*]`));
  return rules;
}

/** Plurals and short names of built-in resources: a category or short name equal to one hijacks it in kubectl. */
const BUILT_IN_NAMES = [
  'all',
  'pods',
  'po',
  'services',
  'svc',
  'deployments',
  'deploy',
  'daemonsets',
  'ds',
  'replicasets',
  'rs',
  'statefulsets',
  'sts',
  'configmaps',
  'cm',
  'secrets',
  'namespaces',
  'ns',
  'nodes',
  'no',
  'persistentvolumes',
  'pv',
  'persistentvolumeclaims',
  'pvc',
  'serviceaccounts',
  'sa',
  'endpoints',
  'ep',
  'endpointslices',
  'events',
  'ev',
  'ingresses',
  'ing',
  'jobs',
  'cronjobs',
  'cj',
  'networkpolicies',
  'netpol',
  'horizontalpodautoscalers',
  'hpa',
  'poddisruptionbudgets',
  'pdb',
  'customresourcedefinitions',
  'crd',
  'crds',
  'limitranges',
  'limits',
  'resourcequotas',
  'quota',
  'replicationcontrollers',
  'rc',
  'storageclasses',
  'sc',
  'priorityclasses',
  'pc',
  'certificatesigningrequests',
  'csr',
  'componentstatuses',
  'cs',
  'leases',
  'roles',
  'rolebindings',
  'clusterroles',
  'clusterrolebindings',
];

describe('the CRDs are structural and say what issue #19 asks', () => {
  it.each([
    ['ships', shipCrd],
    ['repos', repoCrd],
  ] as const)(
    '%s: structural (no $ref, every node typed, junctors value-only, list-map keys required, defaults in their enums)',
    (_, load) => {
      const schema = schemaOf(load());
      expect(structuralProblems(schema)).toEqual([]);
      expect(danglingCelReferences(schema)).toEqual([]);
      expect(schema.type).toBe('object');
      const properties = schema.properties as Record<string, Node>;
      expect(Object.keys(properties)).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
      // metadata may only restrict name/generateName (structural rule 5).
      expect(
        Object.keys((properties.metadata!.properties ?? {}) as Node).every(
          (key) => key === 'name' || key === 'generateName',
        ),
      ).toBe(true);
      expect(schema.required).toEqual(['spec']);
    },
  );

  it('group, version, scope, names, category, status subresource and printer columns', () => {
    for (const [crd, kind, plural, columns] of [
      [
        shipCrd(),
        'Ship',
        'ships',
        [
          ['Ship', '.status.shipName'],
          ['URL', '.spec.url'],
          ['Bridge', '.status.bridgeStatus'],
          ['Ready', '.status.conditions[?(@.type=="Ready")].status'],
          ['Age', '.metadata.creationTimestamp'],
        ],
      ],
      [
        repoCrd(),
        'Repo',
        'repos',
        [
          ['Repo', '.status.repoName'],
          ['URL', '.spec.url'],
          ['Provider', '.spec.provider'],
          ['Ready', '.status.conditions[?(@.type=="Ready")].status'],
          ['Age', '.metadata.creationTimestamp'],
        ],
      ],
    ] as const) {
      expect(crd.metadata.name).toBe(`${plural}.${GROUP}`);
      expect(crd.spec.group).toBe('svc.dev');
      expect(crd.spec.scope).toBe('Namespaced');
      expect(crd.spec.names).toMatchObject({
        kind,
        listKind: `${kind}List`,
        plural,
        singular: kind.toLowerCase(),
        categories: [CATEGORY],
      });
      expect(crd.spec.versions).toHaveLength(1);
      const version = crd.spec.versions[0]!;
      expect(version).toMatchObject({ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} } });
      expect(VERSION).toBe('v1alpha1');
      const shown = version.additionalPrinterColumns.filter((column) => !column.priority);
      expect(shown.map((column) => [column.name, column.jsonPath])).toEqual(columns);
      expect(shown.map((column) => column.type)).toEqual(['string', 'string', 'string', 'string', 'date']);
      // -o wide adds why it is not Ready.
      expect(
        version.additionalPrinterColumns.filter((column) => column.priority === 1).map((column) => column.jsonPath),
      ).toEqual(['.status.conditions[?(@.type=="Ready")].reason']);
      for (const name of [...(crd.spec.names.categories ?? []), ...(crd.spec.names.shortNames ?? [])])
        expect(BUILT_IN_NAMES, `${name} would shadow a built-in resource in kubectl`).not.toContain(name);
    }
  });

  it('the CEL rules, as text (not evaluated: no CEL library is installed)', () => {
    expect(celRules(schemaOf(shipCrd()))).toEqual([
      ['.spec.expectedName', 'size(bytes(self)) <= 128', 'must be at most 128 UTF-8 bytes'],
      ['.spec.auth', "self.mode != 'Secret' || has(self.secretRef)", 'secretRef is required when mode is Secret'],
      ['.spec.auth', "!has(self.secretRef) || self.mode == 'Secret'", 'secretRef is only allowed when mode is Secret'],
    ]);
    expect(celRules(schemaOf(repoCrd()))).toEqual([
      [
        '<root>',
        'has(self.spec.name) || size(self.metadata.name) <= 128',
        'metadata.name is longer than 128 characters, the longest bridge name: set spec.name',
      ],
      [
        '<root>',
        '(has(self.spec.name) ? self.spec.name : self.metadata.name) == (has(oldSelf.spec.name) ? oldSelf.spec.name : oldSelf.metadata.name)',
        'the bridge name (spec.name, else metadata.name) cannot be changed: create a new Repo for another name',
      ],
      ['.spec.name', 'size(bytes(self)) <= 128', 'must be at most 128 UTF-8 bytes'],
    ]);
    // The auth rules read self.mode without has(): safe only because mode is defaulted and auth defaults to {}.
    const auth = ((schemaOf(shipCrd()).properties as Record<string, Node>).spec!.properties as Record<string, Node>)
      .auth!;
    expect(auth.default).toEqual({});
    expect((auth.properties as Record<string, Node>).mode!.default).toBe('Generated');
  });
});

// ---- examples and counter-examples against the schemas ----

/** The schema as Ajv should read it: extensions stripped, unknown fields refused (kubectl's strict validation). */
function forAjv(node: Node, path = ''): Node {
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-kubernetes-')) continue;
    if (key === 'properties')
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Node>).map(([name, child]) => [name, forAjv(child, `${path}.${name}`)]),
      );
    else if (key === 'items' || key === 'not') out[key] = forAjv(value as Node, path);
    else out[key] = value;
  }
  // metadata stays open: the API server validates it itself.
  if (out.type === 'object' && out.properties && path !== '.metadata') out.additionalProperties = false;
  return out;
}

function validator(crd: Crd): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, strictTypes: false });
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  return ajv.compile(forAjv(schemaOf(crd)));
}

let validators: Record<'Ship' | 'Repo', ValidateFunction> | undefined;

/** Validates (and defaults, in place) a Ship or Repo; returns Ajv's errors as `path message`. */
function errorsOf(object: Node): string[] {
  validators ??= { Ship: validator(shipCrd()), Repo: validator(repoCrd()) };
  const validate = validators[object.kind as 'Ship' | 'Repo'];
  if (validate(object)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

function exampleDocuments(): Array<{ file: string; object: Node }> {
  return readdirSync(EXAMPLES)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(EXAMPLES, file), 'utf8')).map((document) => ({
        file,
        object: document.toJS() as Node,
      })),
    );
}

const ship = (spec: Node, name = 'ship-x'): Node => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'Ship',
  metadata: { name },
  spec,
});
const repo = (spec: Node, name = 'repo-x'): Node => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'Repo',
  metadata: { name },
  spec,
});
const condition = (fields: Node = {}): Node => ({
  type: 'Ready',
  status: 'True',
  reason: 'Online',
  message: 'ship is online',
  lastTransitionTime: '2025-01-02T03:04:05Z',
  observedGeneration: 1,
  ...fields,
});

/**
 * The messages of the CEL rules `object` breaks (after errorsOf has defaulted it), as `path: message`, walking
 * schema and object together as the API server does; transition rules only where `old` has a value.
 */
function celRefusals(object: Node, old?: Node): string[] {
  const crd = object.kind === 'Ship' ? shipCrd() : repoCrd();
  const refusals: string[] = [];
  const walk = (schema: Node, value: unknown, previous: { value: unknown } | undefined, path: string) => {
    if (value === undefined) return;
    for (const { rule, message } of (schema['x-kubernetes-validations'] as
      | Array<{ rule: string; message: string }>
      | undefined) ?? []) {
      const transition = isTransitionRule(rule);
      if (transition && previous === undefined) continue;
      if (!checkRule(rule, value, transition ? previous : undefined)) refusals.push(`${path || '<root>'}: ${message}`);
    }
    if (schema.properties && value !== null && typeof value === 'object') {
      for (const [name, child] of Object.entries(schema.properties as Record<string, Node>)) {
        const before = previous?.value as Node | undefined;
        walk(
          child,
          (value as Node)[name],
          before && before[name] !== undefined ? { value: before[name] } : undefined,
          `${path}.${name}`,
        );
      }
    }
    if (schema.items && Array.isArray(value))
      for (const item of value) walk(schema.items as Node, item, undefined, `${path}[*]`);
  };
  walk(schemaOf(crd), object, old ? { value: old } : undefined, '');
  return refusals;
}

describe('crds/examples/', () => {
  it('every Ship and Repo example validates, with the defaults the API server would fill', () => {
    const documents = exampleDocuments();
    const custom = documents.filter(({ object }) => object.apiVersion === 'svc.dev/v1alpha1');
    for (const { file, object } of custom)
      expect(errorsOf(object), `${file} ${String((object.metadata as Node).name)}`).toEqual([]);
    const specs = Object.fromEntries(custom.map(({ object }) => [(object.metadata as Node).name, object.spec as Node]));
    expect(specs['ship-a']).toMatchObject({ auth: { mode: 'Generated' }, deletionPolicy: 'Deregister' });
    expect(specs['ship-b']).toMatchObject({
      auth: { mode: 'Secret', secretRef: { name: 'ship-b-credentials' } },
      deletionPolicy: 'Deregister',
    });
    expect(specs['ship-c']).toMatchObject({ auth: { mode: 'None' }, deletionPolicy: 'Orphan' });
    expect(specs.app).toMatchObject({ provider: 'github', deletionPolicy: 'Deregister' });
    expect(specs['platform-tools']).toMatchObject({
      name: 'Platform_Tools',
      provider: 'custom',
      deletionPolicy: 'Deregister',
    });
    expect(custom.map(({ object }) => object.kind).sort()).toEqual(['Repo', 'Repo', 'Ship', 'Ship', 'Ship']);
  });

  it('the example Secret has both token keys, is Opaque, and is the one the Secret-mode Ship names', () => {
    const documents = exampleDocuments();
    const secrets = documents.filter(({ object }) => object.kind === 'Secret').map(({ object }) => object);
    expect(secrets).toHaveLength(1);
    const secret = secrets[0]!;
    expect(secret.type).toBe('Opaque');
    expect(Object.keys(secret.stringData as Node).sort()).toEqual(
      [TOKEN_KEYS.bridgeToken, TOKEN_KEYS.shipToken].sort(),
    );
    const user = documents.find(
      ({ object }) => ((object.spec as Node | undefined)?.auth as Node | undefined)?.mode === 'Secret',
    );
    expect((((user!.object.spec as Node).auth as Node).secretRef as Node).name).toBe((secret.metadata as Node).name);
    // Placeholders, not usable tokens: nobody should run with a token published in this repository.
    for (const value of Object.values(secret.stringData as Record<string, string>))
      expect(value).toMatch(/^replace-with-/);
  });

  it('an object without auth or deletionPolicy gets auth.mode Generated and Deregister; a Repo gets provider custom', () => {
    const bare = ship({ url: 'http://ship.example:4700' });
    expect(errorsOf(bare)).toEqual([]);
    expect(bare.spec).toEqual({
      url: 'http://ship.example:4700',
      auth: { mode: 'Generated' },
      deletionPolicy: 'Deregister',
    });
    const plain = repo({ url: 'https://git.example/a.git' });
    expect(errorsOf(plain)).toEqual([]);
    expect(plain.spec).toEqual({ url: 'https://git.example/a.git', provider: 'custom', deletionPolicy: 'Deregister' });
  });

  it('refuses broken Ships', () => {
    const cases: Array<[string, Node, string]> = [
      ['no url', ship({ auth: { mode: 'None' } }), "/spec must have required property 'url'"],
      [
        'no spec',
        { apiVersion: 'svc.dev/v1alpha1', kind: 'Ship', metadata: { name: 'x' } },
        "must have required property 'spec'",
      ],
      [
        'a deletionPolicy that is not one',
        ship({ url: 'http://s:4700', deletionPolicy: 'Delete' }),
        '/spec/deletionPolicy must be equal to one of the allowed values',
      ],
      [
        'an auth mode that is not one',
        ship({ url: 'http://s:4700', auth: { mode: 'Token' } }),
        '/spec/auth/mode must be equal to one of the allowed values',
      ],
      ['a url that is not http(s)', ship({ url: 'ftp://s' }), '/spec/url must match pattern "^https?://\\S+$"'],
      ['an empty url', ship({ url: '' }), '/spec/url must NOT have fewer than 1 characters'],
      [
        'a secretRef with a name that is not a Secret name',
        ship({ url: 'http://s:4700', auth: { mode: 'Secret', secretRef: { name: 'Bad_Name' } } }),
        '/spec/auth/secretRef/name must match pattern',
      ],
      [
        'a secretRef without a name',
        ship({ url: 'http://s:4700', auth: { mode: 'Secret', secretRef: {} } }),
        "/spec/auth/secretRef must have required property 'name'",
      ],
      [
        'a secretRef into another namespace',
        ship({ url: 'http://s:4700', auth: { mode: 'Secret', secretRef: { name: 's', namespace: 'other' } } }),
        '/spec/auth/secretRef must NOT have additional properties',
      ],
      [
        'a misspelt field',
        ship({ url: 'http://s:4700', deletionpolicy: 'Orphan' }),
        '/spec must NOT have additional properties',
      ],
      [
        'an expectedName with a slash',
        ship({ url: 'http://s:4700', expectedName: 'a/b' }),
        '/spec/expectedName must match pattern',
      ],
      [
        'an expectedName of ..',
        ship({ url: 'http://s:4700', expectedName: '..' }),
        '/spec/expectedName must NOT be valid',
      ],
      [
        'a name too long for its <name>-tokens Secret',
        ship({ url: 'http://s:4700' }, 'a'.repeat(SHIP_NAME_MAX_LENGTH + 1)),
        `/metadata/name must NOT have more than ${SHIP_NAME_MAX_LENGTH} characters`,
      ],
      [
        'a bridgeStatus that is not one',
        { ...ship({ url: 'http://s:4700' }), status: { bridgeStatus: 'up' } },
        '/status/bridgeStatus must be equal to one of the allowed values',
      ],
      [
        'a condition status that is not one',
        { ...ship({ url: 'http://s:4700' }), status: { conditions: [condition({ status: 'Yes' })] } },
        '/status/conditions/0/status must be equal to one of the allowed values',
      ],
      [
        'a condition without lastTransitionTime',
        {
          ...ship({ url: 'http://s:4700' }),
          status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Online', message: '' }] },
        },
        "/status/conditions/0 must have required property 'lastTransitionTime'",
      ],
      [
        'a condition reason with a space',
        { ...ship({ url: 'http://s:4700' }), status: { conditions: [condition({ reason: 'Ship Unreachable' })] } },
        '/status/conditions/0/reason must match pattern',
      ],
    ];
    for (const [what, object, message] of cases) expect(errorsOf(object).join('\n'), what).toContain(message);
    // The longest name still fits, and a full status is accepted.
    expect(errorsOf(ship({ url: 'http://s:4700' }, 'a'.repeat(SHIP_NAME_MAX_LENGTH)))).toEqual([]);
    const full = {
      ...ship({ url: 'https://s.example:4700', expectedName: 'Ship One' }),
      status: {
        observedGeneration: 2,
        shipName: 'Ship One',
        registeredURL: 'https://s.example:4700',
        bridgeStatus: 'online',
        tokenSecretName: 'ship-x-tokens',
        conditions: [condition({ type: 'Registered', reason: 'Registered' }), condition()],
      },
    };
    expect(errorsOf(full)).toEqual([]);
  });

  it('refuses broken Repos', () => {
    const cases: Array<[string, Node, string]> = [
      ['no url', repo({ provider: 'github' }), "/spec must have required property 'url'"],
      [
        'a provider the bridge does not serve',
        repo({ url: 'https://g/a.git', provider: 'GitHub' }),
        '/spec/provider must be equal to one of the allowed values',
      ],
      [
        'a deletionPolicy that is not one',
        repo({ url: 'https://g/a.git', deletionPolicy: 'Retain' }),
        '/spec/deletionPolicy must be equal to one of the allowed values',
      ],
      ['a url starting with -', repo({ url: '--upload-pack=evil' }), '/spec/url must match pattern'],
      ['a url with a control character', repo({ url: 'https://g/a.git\n' }), '/spec/url must match pattern'],
      ['a name with a slash', repo({ url: 'https://g/a.git', name: 'a/b' }), '/spec/name must match pattern'],
      ['a name with a backslash', repo({ url: 'https://g/a.git', name: 'a\\b' }), '/spec/name must match pattern'],
      ['a name with a tab', repo({ url: 'https://g/a.git', name: 'a\tb' }), '/spec/name must match pattern'],
      ['a name of .', repo({ url: 'https://g/a.git', name: '.' }), '/spec/name must NOT be valid'],
      ['a name of ..', repo({ url: 'https://g/a.git', name: '..' }), '/spec/name must NOT be valid'],
      ['an empty name', repo({ url: 'https://g/a.git', name: '' }), '/spec/name must NOT have fewer than 1 characters'],
      [
        'a name of 129 characters',
        repo({ url: 'https://g/a.git', name: 'n'.repeat(129) }),
        '/spec/name must NOT have more than 128 characters',
      ],
      [
        'a url longer than the bridge takes',
        repo({ url: `https://g/${'a'.repeat(4096)}` }),
        '/spec/url must NOT have more than 4096 characters',
      ],
    ];
    for (const [what, object, message] of cases) expect(errorsOf(object).join('\n'), what).toContain(message);
    for (const name of ['...', 'Platform Tools', 'ünïcödé', '.hidden', 'a..b', 'n'.repeat(128)])
      expect(errorsOf(repo({ url: 'https://g/a.git', name })), name).toEqual([]);
    for (const url of ['git@github.com:o/r.git', 'ssh://git@h/o/r.git', 'https://h/o/r.git', '/srv/git/r.git'])
      expect(errorsOf(repo({ url })), url).toEqual([]);
  });

  it("what only CEL refuses passes the schema alone, and its rule refuses it (evaluated by the fake's CEL subset)", () => {
    const cases: Array<[Node, string[]]> = [
      [
        ship({ url: 'http://s:4700', auth: { mode: 'Secret' } }),
        ['.spec.auth: secretRef is required when mode is Secret'],
      ],
      [
        ship({ url: 'http://s:4700', auth: { mode: 'Generated', secretRef: { name: 's' } } }),
        ['.spec.auth: secretRef is only allowed when mode is Secret'],
      ],
      [
        ship({ url: 'http://s:4700', auth: { mode: 'None', secretRef: { name: 's' } } }),
        ['.spec.auth: secretRef is only allowed when mode is Secret'],
      ],
      [
        ship({ url: 'http://s:4700', auth: { secretRef: { name: 's' } } }),
        ['.spec.auth: secretRef is only allowed when mode is Secret'],
      ], // mode defaulted
      [
        ship({ url: 'http://s:4700', expectedName: 'é'.repeat(65) }),
        ['.spec.expectedName: must be at most 128 UTF-8 bytes'],
      ], // 65 characters, 130 bytes
      [repo({ url: 'https://g/a.git', name: '😀'.repeat(33) }), ['.spec.name: must be at most 128 UTF-8 bytes']], // 132 bytes
      [
        repo({ url: 'https://g/a.git' }, 'r'.repeat(129)),
        ['<root>: metadata.name is longer than 128 characters, the longest bridge name: set spec.name'],
      ],
    ];
    for (const [object, refusals] of cases) {
      expect(errorsOf(object), JSON.stringify(object.spec)).toEqual([]);
      expect(celRefusals(object), JSON.stringify(object.spec)).toEqual(refusals);
    }
    for (const object of [
      ship({ url: 'http://s:4700' }),
      ship({ url: 'http://s:4700', auth: { mode: 'Secret', secretRef: { name: 's' } } }),
      ship({ url: 'http://s:4700', expectedName: 'é'.repeat(64) }),
      repo({ url: 'https://g/a.git', name: '😀'.repeat(32) }),
      repo({ url: 'https://g/a.git', name: 'short' }, 'r'.repeat(200)),
      repo({ url: 'https://g/a.git' }, 'r'.repeat(128)),
      ...exampleDocuments()
        .filter(({ object }) => object.apiVersion === 'svc.dev/v1alpha1')
        .map(({ object }) => object),
    ]) {
      errorsOf(object); // defaults first, as the API server does before CEL
      expect(celRefusals(object), JSON.stringify(object)).toEqual([]);
    }
  });

  it("a Repo's bridge name cannot change on update; its url, provider and policy can (transition rule)", () => {
    const before = repo({ url: 'https://g/a.git' }, 'tools');
    const named = repo({ url: 'https://g/a.git', name: 'Tools' }, 'tools');
    const immutable = [
      '<root>: the bridge name (spec.name, else metadata.name) cannot be changed: create a new Repo for another name',
    ];
    for (const object of [before, named]) errorsOf(object); // defaulted, as stored
    const update = (old: Node, spec: Node) => {
      const next = repo(spec, (old.metadata as Node).name as string);
      errorsOf(next);
      return celRefusals(next, old);
    };
    expect(update(before, { url: 'https://g/b.git', provider: 'github', deletionPolicy: 'Orphan' })).toEqual([]);
    expect(update(before, { url: 'https://g/a.git', name: 'tools' })).toEqual([]); // the same effective name, now spelt out
    expect(update(before, { url: 'https://g/a.git', name: 'Tools' })).toEqual(immutable);
    expect(update(named, { url: 'https://g/a.git', name: 'Tools2' })).toEqual(immutable);
    expect(update(named, { url: 'https://g/a.git' })).toEqual(immutable); // back to metadata.name "tools"
    expect(update(named, { url: 'https://g/c.git', name: 'Tools' })).toEqual([]);
    // A Ship's fields may all change (a new url re-registers the ship): it has no transition rule.
    expect(celRules(schemaOf(shipCrd())).filter(([, rule]) => isTransitionRule(rule))).toEqual([]);
  });
});

describe('the generator and the resources agree', () => {
  it('prints the kinds it is given, from operator/resources', () => {
    expect(customResourceDefinition(SHIP)).toEqual(shipCrd());
    expect(customResourceDefinition(REPO)).toEqual(repoCrd());
  });
});
