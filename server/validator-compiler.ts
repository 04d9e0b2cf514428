// The validator compiler both servers give fastify: @fastify/type-provider-typebox's, except that a params
// schema whose properties are all plain strings skips TypeBox's `Value.Convert`. Path parameters always
// arrive as strings, and Convert only coerces strings into the numbers, booleans and arrays a schema asks
// for, so on such a schema it changes nothing; yet it walks the schema interpretively on every request (a
// few µs of the bridge's routed path, issue #18). Node only, like all of server/.
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';

/** An object schema every property of which is a string without a codec (a decode/encode transform). */
function onlyStrings(schema: unknown): boolean {
  const object = schema as { type?: unknown; properties?: Record<string, object> };
  if (object.type !== 'object' || !object.properties) return false;
  return Object.values(object.properties).every(
    (property) => (property as { type?: unknown }).type === 'string' && !('~codec' in property),
  );
}

export const validatorCompiler: typeof TypeBoxValidatorCompiler = (route) => {
  if (route.httpPart !== 'params' || !onlyStrings(route.schema)) return TypeBoxValidatorCompiler(route);
  const typeCheck = Compile(route.schema as TSchema);
  return (value: unknown) => (typeCheck.Check(value) ? { value } : { error: typeCheck.Errors(value) as never });
};
