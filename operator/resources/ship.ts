// The Ship custom resource (issue #19, docs/architecture.md §10): a ship the operator registers with the bridge, with the
// token pair it keeps in a Secret. The bridge learns a ship's name from the ship itself, so the spec holds
// only what the operator needs to register it; `expectedName` lets a user assert the name (a mismatch is a
// condition, never a silent adoption).
import { Type, type Static } from 'typebox';
import { ShipStatus as BridgeShipStatus } from '../../protocol/bridge.js';
import {
  AGE_COLUMN,
  DeletionPolicy,
  IdentifierString,
  READY_COLUMN,
  REASON_COLUMN,
  ResourceStatus,
  SHIP_NAME_MAX_LENGTH,
  type CustomResource,
  type CustomResourceKind,
} from './common.js';

/** Longest ship URL accepted (the bridge sets none; this bounds what CEL and the operator handle). */
const SHIP_URL_MAX_LENGTH = 2048;

export const ShipAuthMode = Type.Enum(['Generated', 'Secret', 'None'], {
  description:
    'Generated: the operator creates the token pair once, in the Secret <name>-tokens owned by this Ship. ' +
    'Secret: the pair is read from secretRef (keys shipToken and bridgeToken). None: registered without tokens.',
  default: 'Generated',
});
export type ShipAuthMode = Static<typeof ShipAuthMode>;

/** A Secret in the Ship's own namespace: a Ship can never point the operator at another namespace's Secret. */
export const SecretReference = Type.Object(
  {
    name: Type.String({
      description: 'Name of a Secret in this namespace with the keys shipToken and bridgeToken.',
      minLength: 1,
      maxLength: 253,
      pattern: String.raw`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`,
    }),
  },
  { description: 'The user-provided token Secret; required when mode is Secret, not allowed otherwise.' },
);
export type SecretReference = Static<typeof SecretReference>;

/**
 * `mode` has a default, and the parent defaults to `{}` so it applies when `auth` is left out; the API server
 * defaults before it runs CEL, so the rules can read `self.mode` without `has()`.
 */
const SHIP_AUTH_RULES = [
  { rule: "self.mode != 'Secret' || has(self.secretRef)", message: 'secretRef is required when mode is Secret' },
  { rule: "!has(self.secretRef) || self.mode == 'Secret'", message: 'secretRef is only allowed when mode is Secret' },
] as const;

export const ShipAuth = Type.Object(
  {
    mode: Type.Optional(ShipAuthMode),
    secretRef: Type.Optional(SecretReference),
  },
  {
    description: "Where the ship's token pair comes from.",
    default: {},
    'x-kubernetes-validations': SHIP_AUTH_RULES,
  },
);
export type ShipAuth = Static<typeof ShipAuth>;

export const ShipSpec = Type.Object(
  {
    url: Type.String({
      description: "The ship's base URL as the bridge reaches it (http or https). Changing it re-registers the ship.",
      minLength: 1,
      maxLength: SHIP_URL_MAX_LENGTH,
      pattern: String.raw`^https?://\S+$`,
    }),
    expectedName: Type.Optional(
      IdentifierString(
        'The name the ship must report; a different one sets Ready=False (NameMismatch) instead of adopting it.',
      ),
    ),
    auth: Type.Optional(ShipAuth),
    deletionPolicy: Type.Optional(DeletionPolicy),
  },
  { description: 'A ship for the operator to register with the bridge.' },
);
export type ShipSpec = Static<typeof ShipSpec>;

export const ShipResourceStatus = ResourceStatus({
  shipName: Type.Optional(
    Type.String({ description: 'The name the bridge knows the ship by (reported by the ship).' }),
  ),
  registeredURL: Type.Optional(Type.String({ description: 'The URL the ship is registered with.' })),
  bridgeStatus: Type.Optional(
    Type.Union(BridgeShipStatus.anyOf, { description: 'online or offline, as the bridge last reported it.' }),
  ),
  tokenSecretName: Type.Optional(
    Type.String({ description: 'The Secret holding the token pair in use (never the tokens).' }),
  ),
  tokenFingerprint: Type.Optional(
    Type.String({
      description:
        'Which pair the registration was made with: 16 hex digits of a SHA-256 over the pair (never the tokens); a new pair in the Secret registers again.',
    }),
  ),
});
export type ShipResourceStatus = Static<typeof ShipResourceStatus>;

export type ShipResource = CustomResource<'Ship', ShipSpec, ShipResourceStatus>;

export const SHIP: CustomResourceKind = {
  kind: 'Ship',
  plural: 'ships',
  singular: 'ship',
  shortNames: [],
  description: 'A svc ship registered with the bridge by the svc operator.',
  spec: ShipSpec,
  status: ShipResourceStatus,
  nameMaxLength: SHIP_NAME_MAX_LENGTH,
  rules: [],
  printerColumns: [
    {
      name: 'Ship',
      type: 'string',
      jsonPath: '.status.shipName',
      description: 'The name the bridge knows the ship by.',
    },
    { name: 'URL', type: 'string', jsonPath: '.spec.url' },
    {
      name: 'Bridge',
      type: 'string',
      jsonPath: '.status.bridgeStatus',
      description: 'online or offline, as the bridge reports it.',
    },
    READY_COLUMN,
    REASON_COLUMN,
    AGE_COLUMN,
  ],
};
