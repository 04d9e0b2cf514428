// TypeBox (JSON Schema) → Kubernetes structural schema, the dialect a CRD's openAPIV3Schema must be written in
// (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema):
// every node typed, no `$ref`, no `const`, `anyOf`/`oneOf`/`allOf`/`not` only as value validations (no
// type, default, description or additionalProperties inside). TypeBox writes a union of literals as
// `anyOf` of `const`s and `Type.Enum` as an untyped `enum`; both become `type` + `enum` here. Anything this
// does not know is refused with its path rather than passed through, so a schema feature the API server
// would reject (or silently prune) fails the generator, not a `kubectl apply` in someone's cluster.
export type JsonSchema = { [key: string]: unknown };

export class StructuralSchemaError extends Error {}

/** Keys written, in this order (so the YAML reads description first, then type, then constraints). */
const KEY_ORDER = [
  'description',
  'type',
  'format',
  'enum',
  'default',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'not',
  'required',
  'properties',
  'items',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-validations',
] as const;
const KNOWN = new Set<string>(KEY_ORDER);
/** Keys a value validation under `not` may hold (no type/description/default: structural rule). */
const VALUE_VALIDATION = new Set(['enum', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'required']);

function fail(path: string, message: string): never {
  throw new StructuralSchemaError(`${path || '<root>'}: ${message}`);
}

function primitiveType(values: unknown[], path: string): string {
  const types = new Set(values.map((value) => (Number.isInteger(value) ? 'integer' : typeof value)));
  if (types.size !== 1) fail(path, `enum mixes types (${[...types].join(', ')})`);
  const [type] = types;
  if (type !== 'string' && type !== 'integer' && type !== 'number' && type !== 'boolean')
    fail(path, `enum of ${type} values`);
  return type;
}

/** `anyOf` of literals (TypeBox's Union of Literals) → its values; any other anyOf is refused. */
function literalUnion(members: unknown, path: string): unknown[] {
  if (!Array.isArray(members) || members.length === 0) fail(path, 'empty anyOf');
  return members.map((member, index) => {
    const literal = member as JsonSchema;
    const extra = Object.keys(literal).filter((key) => key !== 'const' && key !== 'type');
    if (!('const' in literal) || extra.length > 0)
      fail(`${path}.anyOf[${index}]`, 'only a union of literals can become a structural enum');
    return literal.const;
  });
}

/** The structural form of `input` (a TypeBox schema or its JSON); throws StructuralSchemaError with the path. */
export function toStructural(input: unknown, path = ''): JsonSchema {
  // JSON round trip: drops TypeBox's non-enumerable markers (`~kind`, `~optional`) and functions.
  const node = JSON.parse(JSON.stringify(input)) as JsonSchema;
  const out: JsonSchema = {};
  if ('anyOf' in node) {
    node.enum = literalUnion(node.anyOf, path);
    delete node.anyOf;
  }
  if ('const' in node) {
    node.enum = [node.const];
    delete node.const;
  }
  if ('enum' in node) {
    if (!Array.isArray(node.enum) || node.enum.length === 0) fail(path, 'enum must be a non-empty list');
    const type = primitiveType(node.enum, path);
    if (node.type !== undefined && node.type !== type && !(node.type === 'number' && type === 'integer'))
      fail(path, `enum of ${type} under type ${String(node.type)}`);
    node.type ??= type;
  }
  for (const key of Object.keys(node)) {
    if (!KNOWN.has(key)) fail(path, `"${key}" is not supported in a structural schema here`);
  }
  if (typeof node.type !== 'string') fail(path, 'every node needs a type');
  if (!['object', 'array', 'string', 'integer', 'number', 'boolean'].includes(node.type))
    fail(path, `type ${node.type}`);
  // An object without properties would have every field pruned by the API server.
  if (node.type === 'object' && Object.keys((node.properties ?? {}) as JsonSchema).length === 0)
    fail(path, 'an object needs properties (the API server prunes fields it has no schema for)');
  if (node.type === 'array' && !node.items) fail(path, 'an array needs items');
  if (node.not !== undefined) {
    const not = node.not as JsonSchema;
    for (const key of Object.keys(not))
      if (!VALUE_VALIDATION.has(key)) fail(`${path}.not`, `"${key}" is not a value validation`);
  }
  if (node['x-kubernetes-list-type'] === 'map') {
    const keys = node['x-kubernetes-list-map-keys'] as string[] | undefined;
    const required = ((node.items as JsonSchema | undefined)?.required as string[] | undefined) ?? [];
    if (!keys?.length || !keys.every((key) => required.includes(key)))
      fail(path, 'a list map needs map keys its items require');
  }
  for (const key of KEY_ORDER) {
    const value = node[key];
    if (value === undefined) continue;
    if (key === 'properties') {
      const properties: JsonSchema = {};
      for (const [name, child] of Object.entries(value as JsonSchema))
        properties[name] = toStructural(child, `${path}.${name}`);
      out.properties = properties;
    } else if (key === 'items') {
      out.items = toStructural(value, `${path}[*]`);
    } else if (key === 'required') {
      const names = value as string[];
      const missing = names.filter((name) => !Object.hasOwn((node.properties ?? {}) as JsonSchema, name));
      if (missing.length > 0) fail(path, `required names unknown properties: ${missing.join(', ')}`);
      if (names.length > 0) out.required = names;
    } else {
      out[key] = value;
    }
  }
  return out;
}
