// The fake Kubernetes API server's pure pieces, tested without a socket: the CEL subset, the three patch
// formats, structural schema pruning/defaulting/validation, printer-column JSONPath, selectors and the age
// format kubectl shows.
import { describe, expect, it } from 'vitest';
import { CelUnsupported, checkRule } from '../fakes/kube-api/cel.js';
import { evaluateJsonPath, parseJsonPath } from '../fakes/kube-api/jsonpath.js';
import { jsonPatch, mergePatch, strategicMergePatch } from '../fakes/kube-api/patch.js';
import { humanDuration, SCHEMALESS_DEFAULTS, type KubeObject } from '../fakes/kube-api/resources.js';
import { applyDefaults, prune, validate, type StructuralSchema } from '../fakes/kube-api/schema.js';
import { parseFieldSelector, parseLabelSelector } from '../fakes/kube-api/selectors.js';

describe('CEL subset', () => {
  it.each([
    ["self.mode == 'Secret' ? has(self.secretRef) : !has(self.secretRef)", { mode: 'Secret', secretRef: {} }, true],
    ["self.mode == 'Secret' ? has(self.secretRef) : !has(self.secretRef)", { mode: 'Secret' }, false],
    ["self.mode == 'Secret' ? has(self.secretRef) : !has(self.secretRef)", { mode: 'None', secretRef: {} }, false],
    ['self.size() <= 2 && self.all(k, k.startsWith("a"))', { ab: 1, ac: 2 }, true],
    ["self.url.startsWith('http://') || self.url.startsWith('https://')", { url: 'ftp://x' }, false],
    ["self.name.matches('^[a-z]+$') && size(self.name) < 10", { name: 'abc' }, true],
    ['size(bytes(self.name)) <= 4 && size(self.name) == 3', { name: 'caé' }, true],
    ['size(bytes(self.name)) <= 3', { name: 'caé' }, false],
    ['self.replicas % 2 == 1 && self.replicas * 2 > 5 - 1', { replicas: 3 }, true],
    ["'b' in self.tags && !('z' in self.tags) && self.tags.exists_one(t, t == 'a')", { tags: ['a', 'b'] }, true],
    ['self.items.map(i, i.n).filter(n, n > 1).size() == 2', { items: [{ n: 1 }, { n: 2 }, { n: 3 }] }, true],
    // CEL absorbs an error on one side of || / && when the other side decides.
    ["has(self.a) || self.b == 'x'", { a: 1 }, true],
    ["self.missing == 'x' || true", {}, true],
  ])('%s on %j is %s', (rule, self, expected) => {
    expect(checkRule(rule, self)).toBe(expected);
  });

  it('a missing field is a "no such key" error; transition rules see oldSelf; the unsupported is reported, not guessed', () => {
    expect(() => checkRule("self.missing == 'x'", {})).toThrow('no such key: missing');
    expect(checkRule('self == oldSelf', 'a', { value: 'a' })).toBe(true);
    expect(checkRule('self == oldSelf', 'b', { value: 'a' })).toBe(false);
    expect(() => checkRule('self.x.isSorted()', { x: [1] })).toThrow(CelUnsupported);
    expect(() => checkRule("duration(self.d) > duration('1s')", { d: '2s' })).toThrow(CelUnsupported);
    expect(() => checkRule('self.a ==', { a: 1 })).toThrow(CelUnsupported);
  });
});

describe('patches', () => {
  it('merge patch (RFC 7386): null deletes, objects merge, arrays replace', () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 }, e: [1, 2] }, { a: null, b: { c: 4 }, e: [3] })).toEqual({
      b: { c: 4, d: 3 },
      e: [3],
    });
  });

  it('JSON patch (RFC 6902): every operation, escaped pointers, append; a failed test is a 422 and a non-array a 400', () => {
    const document = { a: { 'b/c': 1, '~d': 2 }, list: [1, 2] };
    expect(
      jsonPatch(document, [
        { op: 'test', path: '/a/b~1c', value: 1 },
        { op: 'replace', path: '/a/~0d', value: 3 },
        { op: 'add', path: '/list/-', value: 3 },
        { op: 'add', path: '/list/0', value: 0 },
        { op: 'remove', path: '/list/1' },
        { op: 'copy', from: '/a/~0d', path: '/copied' },
        { op: 'move', from: '/copied', path: '/moved' },
      ]),
    ).toEqual({ a: { 'b/c': 1, '~d': 3 }, list: [0, 2, 3], moved: 3 });
    expect(document.list).toEqual([1, 2]);
    expect(() => jsonPatch(document, [{ op: 'test', path: '/a/~0d', value: 9 }])).toThrow(
      expect.objectContaining({ code: 422 }),
    );
    expect(() => jsonPatch(document, [{ op: 'replace', path: '/nope', value: 1 }])).toThrow(
      expect.objectContaining({ code: 422 }),
    );
    expect(() => jsonPatch(document, { op: 'add' })).toThrow(expect.objectContaining({ code: 400 }));
  });

  it('strategic merge patch: merge keys, directives, retainKeys and element order', () => {
    const pod = {
      metadata: { ownerReferences: [{ uid: '1', name: 'a' }], finalizers: ['x'] },
      spec: {
        containers: [
          { name: 'a', image: '1', env: [{ name: 'E', value: '1' }] },
          { name: 'b', image: '2' },
        ],
        strategy: { type: 'Rolling', rolling: { max: 1 } },
      },
    };
    const patched = strategicMergePatch(pod, {
      $setElementOrder: undefined,
      metadata: { ownerReferences: [{ uid: '2', name: 'b' }], finalizers: ['y', 'x'] },
      spec: {
        '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }],
        containers: [{ name: 'a', env: [{ name: 'F', value: '2' }] }],
        strategy: { $retainKeys: ['type'], type: 'Recreate' },
      },
    });
    expect(patched).toEqual({
      metadata: {
        ownerReferences: [
          { uid: '1', name: 'a' },
          { uid: '2', name: 'b' },
        ],
        finalizers: ['x', 'y'],
      },
      spec: {
        containers: [
          { name: 'b', image: '2' },
          {
            name: 'a',
            image: '1',
            env: [
              { name: 'E', value: '1' },
              { name: 'F', value: '2' },
            ],
          },
        ],
        strategy: { type: 'Recreate' },
      },
    });
    expect(
      strategicMergePatch(pod, { spec: { containers: [{ $patch: 'replace' }, { name: 'z', image: '9' }] } }),
    ).toMatchObject({ spec: { containers: [{ name: 'z', image: '9' }] } });
    expect(strategicMergePatch(pod, { spec: { strategy: { $patch: 'delete' } } })).not.toHaveProperty('spec.strategy');
  });
});

describe('structural schema', () => {
  const schema: StructuralSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['url'],
        properties: {
          url: { type: 'string', pattern: '^https?://' },
          port: { 'x-kubernetes-int-or-string': true },
          replicas: { type: 'integer', default: 1, minimum: 0 },
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
          nullable: { type: 'string', nullable: true },
          mode: { type: 'string', default: 'Generated' },
        },
      },
    },
  };

  it('prunes unknown fields (keeping apiVersion, kind, metadata and preserved subtrees), then drops disallowed nulls and defaults', () => {
    const object = {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'n' },
      spec: { url: 'https://a', bogus: 1, extra: { anything: true }, nullable: null, mode: null },
      top: 1,
    };
    expect(prune(schema, object)).toEqual(['spec.bogus', 'top']);
    applyDefaults(schema, object);
    expect(object).toEqual({
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'n' },
      spec: { url: 'https://a', extra: { anything: true }, nullable: null, replicas: 1, mode: 'Generated' },
    });
  });

  it('validates required, types, int-or-string, patterns, ranges and item counts with field paths', () => {
    const causes = validate(schema, { spec: { replicas: -1, port: 1.5, tags: ['a', 'b', 'c'], url: 'ftp://x' } });
    expect(causes.map((cause) => `${cause.field} ${cause.reason}`)).toEqual([
      'spec.replicas FieldValueInvalid',
      'spec.port FieldValueTypeInvalid',
      'spec.tags FieldValueTooMany',
      'spec.url FieldValueInvalid',
    ]);
    expect(validate(schema, { spec: {} })).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.url', message: 'Required value' },
    ]);
    expect(validate(schema, { spec: { url: 'http://a', port: 'http' } })).toEqual([]);
  });
});

describe('printer columns, selectors and ages', () => {
  it('JSONPath: fields, indexes, wildcards and condition filters', () => {
    const object = {
      status: {
        conditions: [
          { type: 'Registered', status: 'True' },
          { type: 'Ready', status: 'False' },
        ],
      },
      'a.b': { c: [1, 2] },
    };
    expect(evaluateJsonPath(parseJsonPath('.status.conditions[?(@.type=="Ready")].status'), object)).toEqual(['False']);
    expect(evaluateJsonPath(parseJsonPath("{['a.b'].c[*]}"), object)).toEqual([1, 2]);
    expect(evaluateJsonPath(parseJsonPath('.status.conditions[-1].type'), object)).toEqual(['Ready']);
    expect(evaluateJsonPath(parseJsonPath('.status.missing'), object)).toEqual([]);
  });

  it('field selectors take metadata and declared fields only; label selectors compose', () => {
    const ship = {
      metadata: { name: 'a', namespace: 'n', labels: { 'svc.dev/managed-by': 'daemonset' } },
    } as unknown as KubeObject;
    expect(parseFieldSelector('metadata.name=a,metadata.namespace!=m', SCHEMALESS_DEFAULTS[0]!)(ship)).toBe(true);
    expect(() => parseFieldSelector('spec.url=x', SCHEMALESS_DEFAULTS[0]!)).toThrow(
      'field label not supported: spec.url',
    );
    expect(parseLabelSelector('svc.dev/managed-by=daemonset,!other')(ship)).toBe(true);
    expect(parseLabelSelector('svc.dev/managed-by notin (daemonset)')(ship)).toBe(false);
  });

  it('ages read as kubectl prints them', () => {
    const second = 1000;
    expect(
      [0, 59, 119, 125, 599, 600, 3 * 3600, 7.5 * 3600, 30 * 3600, 50 * 3600, 400 * 24 * 3600, 3 * 365 * 24 * 3600].map(
        (seconds) => humanDuration(seconds * second),
      ),
    ).toEqual(['0s', '59s', '119s', '2m5s', '9m59s', '10m', '3h', '7h30m', '30h', '2d2h', '400d', '3y']);
  });
});
