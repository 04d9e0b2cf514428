// fast-check arbitraries derived from our TypeBox (JSON Schema) shapes, for property-based tests: values
// that fit the schema's shape with hostile contents (path separators, `..`, control characters, option-like
// and format-string names, huge and odd numbers), mixed with values that do not fit at all.
import fc from 'fast-check';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  patternProperties?: Record<string, Schema>;
  minimum?: number;
  maximum?: number;
};

const HOSTILE_STRINGS = [
  '',
  '.',
  '..',
  '/',
  '../..',
  'a/b',
  'a\\b',
  '%2e%2e',
  '-rf',
  '--upload-pack=touch /tmp/x',
  '#(touch /tmp/svc-fuzz)',
  '#{pane_pid}',
  'a.b',
  'a:b',
  '\u0000',
  '\n',
  '\u001b[2J',
  '\ud800',
  'x'.repeat(129),
  'é'.repeat(70),
  'ext::sh -c id',
  'file:///etc',
  'http://127.0.0.1:1/x',
  'HEAD~1..HEAD',
  '--',
  '*',
  '?',
  'main',
  'true',
  'null',
];

export const hostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );

function shaped(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(shaped));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return hostileString();
    case 'integer':
      return fc.oneof(fc.integer(), fc.constantFrom(0, -1, 1, 2 ** 31, Number.MAX_SAFE_INTEGER));
    case 'number':
      return fc.oneof(fc.double(), fc.integer());
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? shaped(schema.items) : fc.anything(), { maxLength: 4 });
    case 'object': {
      if (schema.patternProperties) {
        const value = Object.values(schema.patternProperties)[0]!;
        return fc.dictionary(hostileString(), shaped(value), { maxKeys: 3 });
      }
      const properties = schema.properties ?? {};
      const record = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, shaped(value)]));
      return fc.record(record, { requiredKeys: schema.required ?? [] });
    }
    default:
      return fc.anything();
  }
}

/** Mostly schema-shaped values with hostile contents; sometimes anything at all. */
export function arbitraryFor(schema: unknown): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: shaped(schema as Schema) }, { weight: 1, arbitrary: fc.anything() });
}
