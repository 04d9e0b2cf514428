// The three patch formats the apiserver accepts, applied to a JSON copy of the stored object:
// - JSON merge patch (RFC 7386, application/merge-patch+json);
// - JSON patch (RFC 6902, application/json-patch+json) with add/remove/replace/move/copy/test;
// - strategic merge patch (application/strategic-merge-patch+json) for built-in types: maps merge, lists
//   with a known merge key merge by that key, `finalizers` merges as a set, and the directives kubectl
//   sends ($patch: replace|delete|merge, $retainKeys, $deleteFromPrimitiveList/<f>, $setElementOrder/<f>)
//   are honoured. Merge keys come from a table of field names, not from the OpenAPI schema: the fake only
//   needs the fields its built-in kinds have. $setElementOrder reorders merged lists as kubectl asks.
// Errors are thrown as the apiserver maps them: a malformed patch is 400, a JSON patch that cannot apply
// (a failed `test`, a missing path) is 422.
import { errors } from './errors.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Json = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parsePointer(pointer: unknown): string[] {
  if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/')))
    throw errors.badRequest(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer === '' ? [] : pointer.slice(1).split('/').map(unescapeToken);
}

class PatchApplyError extends Error {}

function parentOf(document: unknown, tokens: string[]): { parent: unknown; key: string } {
  let current = document;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isObject(current)) current = current[token];
    else current = undefined;
    if (current === undefined) throw new PatchApplyError(`doc is missing path: "/${tokens.join('/')}": missing value`);
  }
  return { parent: current, key: tokens[tokens.length - 1]! };
}

function getAt(document: unknown, tokens: string[]): unknown {
  let current = document;
  for (const token of tokens) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isObject(current)) current = current[token];
    else return undefined;
  }
  return current;
}

function arrayIndex(array: unknown[], key: string, forInsert: boolean, pointer: string): number {
  if (forInsert && key === '-') return array.length;
  const index = /^(0|[1-9]\d*)$/.test(key) ? Number(key) : NaN;
  if (Number.isNaN(index) || index > array.length || (!forInsert && index === array.length))
    throw new PatchApplyError(`Unable to access invalid index: ${key} (path ${pointer})`);
  return index;
}

function addAt(document: unknown, tokens: string[], value: unknown, pointer: string): unknown {
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(document, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true, pointer), 0, value);
  else if (isObject(parent)) parent[key] = value;
  else throw new PatchApplyError(`doc is missing path: "${pointer}": missing value`);
  return document;
}

function removeAt(document: unknown, tokens: string[], pointer: string): unknown {
  const { parent, key } = parentOf(document, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, false, pointer), 1);
  else if (isObject(parent) && key in parent) delete parent[key];
  else throw new PatchApplyError(`Unable to remove nonexistent key: ${key}: missing value`);
  return document;
}

export function jsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch))
    throw errors.badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let document = structuredClone(target);
  try {
    for (const operation of patch) {
      if (!isObject(operation))
        throw errors.badRequest('json: cannot unmarshal non-object into Go value of type jsonpatch.Operation');
      const pointer = String(operation.path ?? '');
      const tokens = parsePointer(operation.path);
      switch (operation.op) {
        case 'add':
          document = addAt(document, tokens, structuredClone(operation.value), pointer);
          break;
        case 'remove':
          document = removeAt(document, tokens, pointer);
          break;
        case 'replace':
          if (getAt(document, tokens) === undefined)
            throw new PatchApplyError(
              `replace operation does not apply: doc is missing key: ${pointer}: missing value`,
            );
          document = addAt(removeAt(document, tokens, pointer), tokens, structuredClone(operation.value), pointer);
          break;
        case 'move': {
          const from = parsePointer(operation.from);
          const value = getAt(document, from);
          if (value === undefined)
            throw new PatchApplyError(
              `move operation does not apply: doc is missing from path: ${String(operation.from)}: missing value`,
            );
          document = addAt(removeAt(document, from, String(operation.from)), tokens, value, pointer);
          break;
        }
        case 'copy': {
          const value = getAt(document, parsePointer(operation.from));
          if (value === undefined)
            throw new PatchApplyError(
              `copy operation does not apply: doc is missing from path: ${String(operation.from)}: missing value`,
            );
          document = addAt(document, tokens, structuredClone(value), pointer);
          break;
        }
        case 'test':
          if (JSON.stringify(getAt(document, tokens)) !== JSON.stringify(operation.value))
            throw new PatchApplyError(`testing value ${pointer} failed: test failed`);
          break;
        default:
          throw errors.badRequest(`Unexpected kind: ${String(operation.op)}`);
      }
    }
  } catch (error) {
    if (error instanceof PatchApplyError) throw errors.unprocessable(error.message);
    throw error;
  }
  return document;
}

/** Lists merged by a key field under strategic merge patch, by field name. */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  imagePullSecrets: 'name',
  ports: 'containerPort',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  ownerReferences: 'uid',
  conditions: 'type',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
};
/** Primitive lists merged as sets. */
const SET_LISTS = new Set(['finalizers']);

export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch))
    throw errors.badRequest('unable to find api field in struct: strategic merge patch must be a JSON object');
  return mergeMap(isObject(target) ? target : {}, patch);
}

function mergeMap(original: Json, patch: Json): Json | undefined {
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  const rest = { ...patch };
  delete rest.$patch;
  if (directive === 'replace') return stripDirectives(rest) as Json;
  const result: Json = { ...original };
  const retainKeys = rest.$retainKeys;
  delete rest.$retainKeys;
  const orders: Record<string, unknown[]> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key.startsWith('$setElementOrder/')) {
      orders[key.slice('$setElementOrder/'.length)] = value as unknown[];
      continue;
    }
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const remove = new Set((value as unknown[]).map((item) => JSON.stringify(item)));
      if (Array.isArray(result[field]))
        result[field] = (result[field] as unknown[]).filter((item) => !remove.has(JSON.stringify(item)));
      continue;
    }
    if (value === null) {
      delete result[key];
    } else if (isObject(value)) {
      const merged = mergeMap(isObject(result[key]) ? (result[key] as Json) : {}, value);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else if (Array.isArray(value)) {
      result[key] = mergeList(key, result[key], value);
    } else {
      result[key] = value;
    }
  }
  for (const [field, order] of Object.entries(orders)) {
    if (Array.isArray(result[field])) result[field] = reorder(field, result[field] as unknown[], order);
  }
  if (Array.isArray(retainKeys)) {
    for (const key of Object.keys(result)) if (!retainKeys.includes(key)) delete result[key];
  }
  return result;
}

function mergeList(field: string, original: unknown, patch: unknown[]): unknown[] {
  const current = Array.isArray(original) ? original : [];
  if (patch.some((item) => isObject(item) && item.$patch === 'replace'))
    return stripDirectives(patch.filter((item) => !(isObject(item) && item.$patch === 'replace'))) as unknown[];
  const key = MERGE_KEYS[field];
  if (key) {
    const result = current.map((item) => structuredClone(item));
    for (const item of patch) {
      if (!isObject(item)) continue;
      const at = result.findIndex((existing) => isObject(existing) && existing[key] === item[key]);
      if (item.$patch === 'delete') {
        if (at >= 0) result.splice(at, 1);
      } else if (at >= 0) {
        result[at] = mergeMap(result[at] as Json, item) ?? result[at];
      } else {
        result.push(stripDirectives(item));
      }
    }
    return result;
  }
  if (SET_LISTS.has(field)) {
    const seen = new Set(current.map((item) => JSON.stringify(item)));
    return [...current, ...patch.filter((item) => !seen.has(JSON.stringify(item)))];
  }
  return stripDirectives(patch) as unknown[];
}

function reorder(field: string, list: unknown[], order: unknown[]): unknown[] {
  const key = MERGE_KEYS[field];
  const identity = (item: unknown) => JSON.stringify(key && isObject(item) ? item[key] : item);
  const wanted = order.map((item) => identity(key && isObject(item) ? item : item));
  const ranked = list.map((item, index) => ({ item, rank: wanted.indexOf(identity(item)), index }));
  return ranked
    .sort((a, b) => (a.rank < 0 ? Infinity : a.rank) - (b.rank < 0 ? Infinity : b.rank) || a.index - b.index)
    .map((entry) => entry.item);
}

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  const result: Json = {};
  for (const [key, child] of Object.entries(value)) if (!key.startsWith('$')) result[key] = stripDirectives(child);
  return result;
}

export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;
