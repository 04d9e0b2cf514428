// A CRD's structural openAPIV3Schema applied to a custom object the way apiextensions-apiserver does, in
// its order: prune unknown fields (reported, so `fieldValidation=Strict` can refuse them and `Warn` can
// warn), drop nulls the schema does not allow, apply defaults, then validate types, required fields, enums,
// lengths, ranges, patterns, item counts and anyOf/oneOf/allOf/not. Errors are field.ErrorList-shaped
// causes (`spec.url: Required value`).
// CEL rules (`x-kubernetes-validations`) are evaluated with the subset in cel.ts, transition rules (oldSelf)
// on update only; a rule outside that subset is skipped and reported in `ignoredRules` (the server turns it
// into a Warning header), never guessed. Not checked: list-type uniqueness (`x-kubernetes-list-type`).
import { CelError, CelUnsupported, checkRule, isTransitionRule } from './cel.js';
import type { StatusCause } from './errors.js';

export interface StructuralSchema {
  type?: string;
  properties?: Record<string, StructuralSchema>;
  additionalProperties?: StructuralSchema | boolean;
  items?: StructuralSchema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  anyOf?: StructuralSchema[];
  oneOf?: StructuralSchema[];
  allOf?: StructuralSchema[];
  not?: StructuralSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-validations'?: unknown[];
  [key: string]: unknown;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);
const EMBEDDED_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/** Removes fields the schema does not know; returns their paths. */
export function prune(schema: StructuralSchema, value: unknown, path = '', root = true): string[] {
  const unknown: string[] = [];
  if (Array.isArray(value)) {
    if (schema.items)
      for (const [index, item] of value.entries())
        unknown.push(...prune(schema.items!, item, join(path, index), false));
    return unknown;
  }
  if (!isObject(value)) return unknown;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const properties = schema.properties ?? {};
  const additional = schema.additionalProperties;
  for (const key of Object.keys(value)) {
    if (root && ROOT_FIELDS.has(key)) continue;
    if (schema['x-kubernetes-embedded-resource'] && EMBEDDED_FIELDS.has(key)) continue;
    const child = properties[key] ?? (isObject(additional) ? additional : undefined);
    if (child) unknown.push(...prune(child, value[key], join(path, key), false));
    else if (!preserve && additional !== true) {
      unknown.push(join(path, key));
      delete value[key];
    }
  }
  return unknown;
}

/** Drops nulls where not nullable, then fills defaults (both before validation, as the apiserver does). */
export function applyDefaults(schema: StructuralSchema, value: unknown): void {
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) applyDefaults(schema.items, item);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    if (value[key] === null && !child.nullable) delete value[key];
    if (value[key] === undefined && child.default !== undefined) value[key] = structuredClone(child.default);
    if (value[key] !== undefined) applyDefaults(child, value[key]);
  }
  if (isObject(schema.additionalProperties)) {
    for (const key of Object.keys(value))
      if (!(key in (schema.properties ?? {}))) applyDefaults(schema.additionalProperties, value[key]);
  }
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function shown(value: unknown): string {
  return typeof value === 'string'
    ? JSON.stringify(value)
    : typeof value === 'object'
      ? `"${typeOf(value)}"`
      : String(value);
}

function typeMatches(schema: StructuralSchema, value: unknown): boolean {
  if (!schema.type && !schema['x-kubernetes-int-or-string']) return true;
  if (schema['x-kubernetes-int-or-string']) return typeof value === 'string' || Number.isInteger(value);
  if (value === null) return schema.nullable === true;
  const actual = typeOf(value);
  return actual === schema.type || (schema.type === 'number' && actual === 'integer');
}

const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value),
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value),
  byte: (value) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value),
  uri: (value) => {
    try {
      new URL(value);
      return true;
    } catch {
      return false;
    }
  },
};

/** The object being replaced (for CEL transition rules) and where skipped rules are reported. */
export interface ValidationContext {
  old?: { value: unknown };
  ignoredRules: string[];
}

interface CelRule {
  rule?: string;
  message?: string;
  reason?: string;
  fieldPath?: string;
}

const RULE_REASONS: Record<string, (type: string, message: string) => string> = {
  FieldValueInvalid: (type, message) => `Invalid value: "${type}": ${message}`,
  FieldValueForbidden: (_, message) => `Forbidden: ${message}`,
  FieldValueRequired: (_, message) => `Required value: ${message}`,
  FieldValueDuplicate: (type, message) => `Duplicate value: "${type}": ${message}`,
};

function checkRules(schema: StructuralSchema, value: unknown, path: string, context: ValidationContext): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const entry of (schema['x-kubernetes-validations'] ?? []) as CelRule[]) {
    const rule = entry.rule ?? '';
    const transition = isTransitionRule(rule);
    if (transition && !context.old) continue;
    const field = entry.fieldPath ? join(path, entry.fieldPath.replace(/^\./, '')) : path || '<nil>';
    const reason = RULE_REASONS[entry.reason ?? ''] ? entry.reason! : 'FieldValueInvalid';
    const type = schema.type ?? typeOf(value);
    try {
      if (!checkRule(rule, value, transition ? context.old : undefined))
        causes.push({ reason, field, message: RULE_REASONS[reason]!(type, entry.message ?? `failed rule: ${rule}`) });
    } catch (error) {
      if (error instanceof CelUnsupported) context.ignoredRules.push(`${field}: ${rule} (${error.message})`);
      else if (error instanceof CelError)
        causes.push({
          reason: 'FieldValueInvalid',
          field,
          message: `Invalid value: "${type}": ${error.message} evaluating rule: ${rule}`,
        });
      else throw error;
    }
  }
  return causes;
}

function oldChild(context: ValidationContext, key: string): ValidationContext {
  const old = context.old?.value;
  const present = old !== null && typeof old === 'object' && !Array.isArray(old) && key in old;
  return {
    ignoredRules: context.ignoredRules,
    old: present ? { value: (old as Record<string, unknown>)[key] } : undefined,
  };
}

/** Field errors of `value` against `schema`. */
export function validate(
  schema: StructuralSchema,
  value: unknown,
  path = '',
  context: ValidationContext = { ignoredRules: [] },
): StatusCause[] {
  const causes: StatusCause[] = [];
  const field = path || '<nil>';
  if (!typeMatches(schema, value)) {
    const expected = schema['x-kubernetes-int-or-string'] ? 'integer or string' : schema.type;
    return [
      {
        reason: 'FieldValueTypeInvalid',
        field,
        message: `Invalid value: ${shown(value)}: ${field} in body must be of type ${expected}: ${shown(typeOf(value))}`,
      },
    ];
  }
  if (value === null) return causes;
  if (schema.enum && !schema.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))) {
    causes.push({
      reason: 'FieldValueNotSupported',
      field,
      message: `Unsupported value: ${shown(value)}: supported values: ${schema.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}`,
    });
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength)
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${shown(value)}: ${field} in body should be at least ${schema.minLength} chars long`,
      });
    if (schema.maxLength !== undefined && length > schema.maxLength)
      causes.push({
        reason: 'FieldValueTooLong',
        field,
        message: `Too long: may not be more than ${schema.maxLength} bytes`,
      });
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value))
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${shown(value)}: ${field} in body should match '${schema.pattern}'`,
      });
    const format = schema.format ? FORMATS[schema.format] : undefined;
    if (format && !format(value))
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${shown(value)}: ${field} in body must be of type ${schema.format}: ${shown(value)}`,
      });
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum))
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${value}: ${field} in body should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`,
      });
    if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum))
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${value}: ${field} in body should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`,
      });
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${value.length}: ${field} in body should have at least ${schema.minItems} items`,
      });
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      causes.push({
        reason: 'FieldValueTooMany',
        field,
        message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
      });
    if (schema.items)
      for (const [index, item] of value.entries())
        causes.push(...validate(schema.items!, item, join(path, index), { ignoredRules: context.ignoredRules }));
  }
  if (isObject(value)) {
    for (const key of schema.required ?? []) {
      if (value[key] === undefined)
        causes.push({ reason: 'FieldValueRequired', field: join(path, key), message: 'Required value' });
    }
    const count = Object.keys(value).length;
    if (schema.minProperties !== undefined && count < schema.minProperties)
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${count}: ${field} in body should have at least ${schema.minProperties} properties`,
      });
    if (schema.maxProperties !== undefined && count > schema.maxProperties)
      causes.push({
        reason: 'FieldValueTooMany',
        field,
        message: `Too many: ${count}: must have at most ${schema.maxProperties} items`,
      });
    for (const [key, child] of Object.entries(value)) {
      if (!path && ROOT_FIELDS.has(key)) continue;
      const childSchema =
        schema.properties?.[key] ??
        (isObject(schema.additionalProperties) ? (schema.additionalProperties as StructuralSchema) : undefined);
      if (childSchema) causes.push(...validate(childSchema, child, join(path, key), oldChild(context, key)));
    }
  }
  // As the apiserver: a type error blocks CEL (its rules would see values of the wrong type); others do not.
  if (!causes.some((cause) => cause.reason === 'FieldValueTypeInvalid'))
    causes.push(...checkRules(schema, value, path, context));
  // Value validations (no types of their own in a structural schema).
  for (const branch of schema.allOf ?? []) causes.push(...validate({ ...branch, type: undefined }, value, path));
  if (
    schema.anyOf &&
    !schema.anyOf.some((branch) => validate({ ...branch, type: branch.type }, value, path).length === 0)
  ) {
    causes.push({
      reason: 'FieldValueInvalid',
      field,
      message: `Invalid value: ${shown(value)}: ${field} in body must match at least one schema (anyOf)`,
    });
  }
  if (schema.oneOf && schema.oneOf.filter((branch) => validate(branch, value, path).length === 0).length !== 1) {
    causes.push({
      reason: 'FieldValueInvalid',
      field,
      message: `Invalid value: ${shown(value)}: ${field} in body must match exactly one schema (oneOf)`,
    });
  }
  if (schema.not && validate(schema.not, value, path).length === 0) {
    causes.push({
      reason: 'FieldValueInvalid',
      field,
      message: `Invalid value: ${shown(value)}: ${field} in body should not match the schema (not)`,
    });
  }
  return causes;
}
