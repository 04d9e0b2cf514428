// Every object the chart renders, in every values case, and the chart's CRDs, checked against the
// Kubernetes API schemas without a cluster (docs/DECISIONS.md, "Chart: validating rendered objects"):
// - types, required fields, enums and formats: the JSON schemas of `kubernetes-models` 5.1.0 (generated
//   from the Kubernetes OpenAPI, 1.34 API; Gateway API and prometheus-operator models for HTTPRoute and
//   ServiceMonitor), pinned in package.json;
// - unknown fields (what `kubectl --validate=strict` refuses; the models' schemas allow extra fields): the
//   field lists of @kubernetes/client-node 1.4.0's generated models (same API), for the built-in kinds.
// The fake API server serves OpenAPI for custom resources only, so kubectl's own validation cannot run here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as kube from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { CASES, caseObjects, CHART, helmAvailable, parseObjects, type KubeObject } from './render.js';

const haveHelm = helmAvailable('test/chart/kube-schema.test.ts');

/** The kubernetes-models module of a kind: built-in groups, the Gateway API and prometheus-operator. */
function modelModule(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
  if (group === 'gateway.networking.k8s.io') return `@kubernetes-models/gateway-api/${group}/${version}/${kind}`;
  if (group === 'monitoring.coreos.com') return `@kubernetes-models/prometheus-operator/${group}/${version}/${kind}`;
  return group ? `kubernetes-models/${group}/${version}/${kind}` : `kubernetes-models/${version}/${kind}`;
}

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

/** Schema errors of an object ('' when valid), from its kubernetes-models class. */
async function schemaErrors(object: KubeObject): Promise<string> {
  const module = (await import(modelModule(object.apiVersion, object.kind))) as Record<string, ModelClass>;
  const Model = module[object.kind];
  if (!Model) throw new Error(`no kubernetes-models class for ${object.apiVersion} ${object.kind}`);
  try {
    new Model(object).validate();
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

interface Attribute {
  baseName: string;
  type: string;
}
const models = kube as unknown as Record<string, { attributeTypeMap?: Attribute[] } | undefined>;
const SCALARS = new Set(['string', 'number', 'boolean', 'Date', 'any', 'object', 'IntOrString']);

/** Fields the client-node model of `type` does not have, recursively, as JSON paths. */
function unknownFields(value: unknown, type: string, path: string, found: string[]): void {
  if (value === null || value === undefined || SCALARS.has(type)) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value))
      for (const [index, item] of value.entries()) unknownFields(item, array[1]!, `${path}[${index}]`, found);
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    for (const [key, item] of Object.entries(value as object)) unknownFields(item, map[1]!, `${path}.${key}`, found);
    return;
  }
  const attributes = models[type]?.attributeTypeMap;
  if (!attributes) throw new Error(`no client-node model ${type} (at ${path})`);
  if (typeof value !== 'object' || Array.isArray(value)) return; // a type error: the schema check reports it
  const byName = new Map(attributes.map((attribute) => [attribute.baseName, attribute.type]));
  for (const [key, item] of Object.entries(value)) {
    const itemType = byName.get(key);
    if (itemType === undefined) found.push(`${path}.${key}`);
    else unknownFields(item, itemType, `${path}.${key}`, found);
  }
}

/** The client-node model of a built-in kind (V1Deployment, V1ClusterRole…), or undefined for custom kinds. */
function builtInModel(object: KubeObject): string | undefined {
  const version = object.apiVersion.split('/').pop()!;
  const name = `${version[0]!.toUpperCase()}${version.slice(1)}${object.kind}`;
  return models[name]?.attributeTypeMap ? name : undefined;
}

async function problems(object: KubeObject): Promise<string[]> {
  const found: string[] = [];
  const errors = await schemaErrors(object);
  if (errors) found.push(errors);
  const model = builtInModel(object);
  if (model) {
    const unknown: string[] = [];
    unknownFields(object, model, '', unknown);
    if (unknown.length) found.push(`unknown fields: ${unknown.join(', ')}`);
  } else if (!['gateway.networking.k8s.io/v1', 'monitoring.coreos.com/v1'].includes(object.apiVersion)) {
    found.push(`no field list for ${object.apiVersion} ${object.kind}: add its unknown-field check`);
  }
  return found;
}

describe('the checks themselves', () => {
  const deployment: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
  };
  it('pass a valid object', async () => {
    expect(await problems(deployment)).toEqual([]);
  });
  it('report a misspelt field, a wrong type, a missing required field and a bad enum', async () => {
    const bad = structuredClone(deployment) as KubeObject & { spec: Record<string, any> };
    bad.spec.template.spec.containers[0].readinesProbe = { httpGet: { path: '/readyz', port: 'http' } };
    bad.spec.template.spec.containers[0].ports = [{ containerPort: '4800' }];
    delete bad.spec.template.spec.containers[0].name;
    bad.spec.strategy = { type: 'Blue' };
    const found = (await problems(bad)).join('\n');
    expect(found).toContain('unknown fields: .spec.template.spec.containers[0].readinesProbe');
    expect(found).toContain('containerPort must be integer');
    expect(found).toContain('containers/0 must have required property name');
    expect(found).toContain('spec/strategy/type must be equal to one of the allowed values');
  });
  it('report a wrong type in a Gateway API route', async () => {
    const route: KubeObject = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'r' },
      spec: { rules: [{ backendRefs: [{ name: 's', port: 'http' }] }] },
    };
    expect((await problems(route)).join('\n')).toContain('backendRefs/0/port must be integer');
  });
});

describe.skipIf(!haveHelm)('every rendered object is valid against the Kubernetes schemas', () => {
  it.each(CASES)('%s', async (name) => {
    const report: string[] = [];
    for (const object of await caseObjects(name)) {
      for (const problem of await problems(object)) report.push(`${object.kind} ${object.metadata.name}: ${problem}`);
    }
    expect(report).toEqual([]);
  });
});

describe("the chart's CRDs are valid CustomResourceDefinitions", () => {
  const files = readdirSync(join(CHART, 'crds')).filter((name) => name.endsWith('.yaml'));
  it.each(files)('%s', async (file) => {
    const objects = parseObjects(readFileSync(join(CHART, 'crds', file), 'utf8')).map(({ object }) => object);
    expect(objects.map((object) => object.kind)).toEqual(['CustomResourceDefinition']);
    expect(await problems(objects[0]!)).toEqual([]);
  });
});
