// What the Ship and Repo custom resources share: the API group, the names docs/architecture.md §10 fixes (finalizer, label,
// token keys), the condition shape, the deletion policy and the svc identifier as far as an OpenAPI schema
// and CEL can say it. These TypeBox schemas are the source of crds/*.yaml (operator/crds/generate.ts turns
// them into structural schemas), so every constraint here reaches the API server; keep to keywords a
// structural schema allows (the generator refuses the rest), write enums as `Type.Enum` (they become
// `type: string` + `enum`) and put `x-kubernetes-*` extensions in the options.
// Not here: how the operator decides anything (reasons, requeues) — only the shapes it reads and writes.
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Type, type Static, type TSchema } from 'typebox';
import { IDENTIFIER_MAX_BYTES } from '../../protocol/identifier-rules.js';

export const GROUP = 'svc.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
/**
 * The category `kubectl get <category>` lists both kinds under. Not `svc` (as first designed):
 * kubectl expands a category before it resolves short names, so a category `svc` turns `kubectl get svc`
 * into "list Ships and Repos" for every user of the cluster instead of listing Services (measured with
 * kubectl v1.33.9: a CRD in category `po` took over `kubectl get po`). docs/DECISIONS.md has the details.
 */
export const CATEGORY = 'svc-dev';

/** On every Ship and Repo the operator registered; removed once the bridge has forgotten it (or by Orphan). */
export const FINALIZER = 'svc.dev/deregister';
/** Label of the Ships the operator manages for a ship DaemonSet (value `daemonset`). */
export const MANAGED_BY_LABEL = 'svc.dev/managed-by';
/** Data keys of a ship token Secret, Generated or user-provided (`spec.auth.secretRef`). */
export const TOKEN_KEYS = { shipToken: 'shipToken', bridgeToken: 'bridgeToken' } as const;
const TOKEN_SECRET_SUFFIX = '-tokens';
/** The Secret holding a Generated token pair: `<metadata.name of the Ship>-tokens`, owned by the Ship. */
export function generatedTokenSecretName(shipName: string): string {
  return `${shipName}${TOKEN_SECRET_SUFFIX}`;
}
/** Longest Ship name whose `<name>-tokens` is still a valid Secret name (253, a DNS subdomain). */
export const SHIP_NAME_MAX_LENGTH = 253 - TOKEN_SECRET_SUFFIX.length;

/**
 * A bridge name for a repo or ship (protocol/identifier-rules.ts). The schema says: 1..128 characters, no `/`
 * or `\`, no control characters (pattern), not `.` or `..` (`not` with an enum: a value validation, allowed
 * in a structural schema); CEL adds the byte bound, since maxLength counts characters and the rule counts
 * UTF-8 bytes. The rule's "well-formed Unicode" needs nothing: the API server decodes JSON and YAML to valid
 * UTF-8 (a lone surrogate arrives as U+FFFD).
 */
export function IdentifierString(description: string) {
  return Type.String({
    description,
    minLength: 1,
    maxLength: IDENTIFIER_MAX_BYTES,
    pattern: String.raw`^[^/\\\p{Cc}]*$`,
    not: { enum: ['.', '..'] },
    'x-kubernetes-validations': [
      {
        rule: `size(bytes(self)) <= ${IDENTIFIER_MAX_BYTES}`,
        message: `must be at most ${IDENTIFIER_MAX_BYTES} UTF-8 bytes`,
      },
    ],
  });
}

export const DeletionPolicy = Type.Enum(['Deregister', 'Orphan'], {
  description:
    'What deleting this object does to the bridge: Deregister removes the registration first (the default); Orphan leaves it.',
  default: 'Deregister',
});
export type DeletionPolicy = Static<typeof DeletionPolicy>;

export const ConditionStatus = Type.Enum(['True', 'False', 'Unknown']);
export type ConditionStatus = Static<typeof ConditionStatus>;

/** The condition types both kinds report (docs/architecture.md §10). */
const CONDITION_TYPES = ['Registered', 'Ready'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

const ObservedGeneration = (description: string) => Type.Integer({ description, format: 'int64', minimum: 0 });

/**
 * One status condition, shaped and bounded as metav1.Condition (what `kubectl wait --for=condition=Ready`
 * and other tools expect): all fields but observedGeneration required, `type` and `reason` CamelCase tokens.
 * The type is left open (not an enum of CONDITION_TYPES) so a later condition needs no CRD change.
 */
export const Condition = Type.Object({
  type: Type.String({
    description: 'Registered or Ready.',
    minLength: 1,
    maxLength: 316,
    pattern: String.raw`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`,
  }),
  status: ConditionStatus,
  reason: Type.String({
    description: 'Why the condition has this status, as a CamelCase word (e.g. NameConflict).',
    minLength: 1,
    maxLength: 1024,
    // biome-ignore lint/complexity/noUselessStringRaw: every CRD pattern is String.raw, backslash or not
    pattern: String.raw`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`,
  }),
  message: Type.String({ description: 'What a person should know, in a sentence.', maxLength: 32768 }),
  lastTransitionTime: Type.String({
    description: 'When status last changed (not when the condition was last written).',
    format: 'date-time',
  }),
  observedGeneration: Type.Optional(ObservedGeneration('The metadata.generation this condition was computed from.')),
});
export type Condition = Static<typeof Condition>;

/** `status.conditions`: a list map keyed by type, as metav1 conditions are (one entry per type). */
const Conditions = Type.Array(Condition, {
  description: 'Registered and Ready, each with the generation it describes.',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});

const StatusObservedGeneration = ObservedGeneration('The metadata.generation the operator last acted on.');

/** A kind's status: observedGeneration, the kind's own fields, then conditions (the order the CRD lists). */
export function ResourceStatus<Fields extends Record<string, TSchema>>(fields: Fields) {
  return Type.Object(
    { observedGeneration: Type.Optional(StatusObservedGeneration), ...fields, conditions: Type.Optional(Conditions) },
    { description: 'What the operator observed; written through the status subresource only.' },
  );
}

/** An object of a kind as read from the API server (spec defaults applied by the server; status absent until first written). */
export interface CustomResource<Kind extends string, Spec, Status> {
  apiVersion: 'svc.dev/v1alpha1';
  kind: Kind;
  metadata: V1ObjectMeta;
  spec: Spec;
  status?: Status;
}

/** A printer column as a CRD version lists it. */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

/** A CEL rule as `x-kubernetes-validations` holds it. */
export interface CelRule {
  rule: string;
  message: string;
}

/** Everything the generator needs to write one kind's CustomResourceDefinition. */
export interface CustomResourceKind {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  description: string;
  spec: TSchema;
  status: TSchema;
  /** Restrictions on metadata.name (the only metadata a CRD schema may constrain besides generateName). */
  nameMaxLength?: number;
  /** Rules on the whole object (the only place CEL can read metadata.name next to spec). */
  rules: CelRule[];
  printerColumns: PrinterColumn[];
}

export const READY_COLUMN: PrinterColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
};
export const REASON_COLUMN: PrinterColumn = {
  name: 'Reason',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
  priority: 1,
};
export const AGE_COLUMN: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
