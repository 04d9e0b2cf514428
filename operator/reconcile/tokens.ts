// Ship token pairs in Secrets (docs/architecture.md §10): what a Ship's `spec.auth` asks for, read from the Secret it names
// (pure), and the Generated Secret the operator creates once. Values are 32 bytes of CSPRNG output in
// base64url (spec "Ship/bridge token pair"); a Secret that exists is written again only to rotate its pair,
// when the Ship asks through ROTATE_TOKENS_ANNOTATION (never by accident). A pair's fingerprint (a truncated
// SHA-256, never the tokens) tells the status which pair a registration was made with. Nothing here logs, and
// nothing returned for status or messages holds a token.
import { createHash } from 'node:crypto';
import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import { newToken } from '../../server/tokens.js';
import { generatedTokenSecretName, TOKEN_KEYS, type ShipAuthMode, type ShipResource } from '../resources/index.js';
import { MANAGED_BY_OPERATOR, ROTATE_TOKENS_ANNOTATION, TOKENS_ROTATION_ANNOTATION } from './names.js';

/** What registration will present, decided from the Ship's auth mode and the Secret's contents. */
export type TokenState =
  /** Register with this pair. */
  | {
      kind: 'pair';
      secretName: string;
      shipToken: string;
      bridgeToken: string;
      rotation?: string;
      resourceVersion?: string;
    }
  /** Register without credentials (mode None, or a Secret with neither key). */
  | { kind: 'none'; secretName?: string }
  /** Mode Generated and the Secret does not exist yet: create it. */
  | { kind: 'absent'; secretName: string }
  /** The Secret cannot be used: Ready=False TokensInvalid with this message. */
  | { kind: 'invalid'; secretName: string; message: string };

/** A Ship's `spec.auth.mode`, Generated when unset (the CRD's default). */
export function authModeOf(ship: Pick<ShipResource, 'spec'>): ShipAuthMode {
  return ship.spec.auth?.mode ?? 'Generated';
}

/** The Secret a Ship's tokens live in (undefined for mode None). */
export function tokenSecretNameOf(ship: Pick<ShipResource, 'metadata' | 'spec'>): string | undefined {
  const mode = authModeOf(ship);
  if (mode === 'None') return undefined;
  if (mode === 'Secret') return ship.spec.auth?.secretRef?.name;
  return generatedTokenSecretName(ship.metadata.name ?? '');
}

function decoded(secret: V1Secret, key: string): string | undefined {
  const fromData = secret.data?.[key];
  if (fromData !== undefined) return Buffer.from(fromData, 'base64').toString('utf8');
  // stringData is write-only on a real API server; a fake or a dry-run object may still carry it.
  return secret.stringData?.[key];
}

/**
 * Reads the pair a Ship asks for. `secret` is the Secret named by tokenSecretNameOf (undefined: not found).
 * A Secret holds both keys or neither (spec: both or neither); an empty value counts as absent, as the bridge
 * treats a blank token.
 */
export function readTokens(ship: Pick<ShipResource, 'metadata' | 'spec'>, secret: V1Secret | undefined): TokenState {
  const mode = authModeOf(ship);
  if (mode === 'None') return { kind: 'none' };
  const secretName = tokenSecretNameOf(ship);
  if (!secretName)
    return {
      kind: 'invalid',
      secretName: '',
      message: 'spec.auth.mode is Secret but spec.auth.secretRef.name is not set',
    };
  if (!secret) {
    if (mode === 'Generated') return { kind: 'absent', secretName };
    return { kind: 'invalid', secretName, message: `Secret ${secretName} not found` };
  }
  // A Generated Secret still owned by an earlier Ship of the same name (deleted, its Secret not yet
  // garbage-collected) would hand this Ship a pair that is about to vanish: wait for the collector instead.
  const staleOwner = (secret.metadata?.ownerReferences ?? []).find(
    (owner) => owner.kind === 'Ship' && ship.metadata.uid && owner.uid !== ship.metadata.uid,
  );
  if (mode === 'Generated' && staleOwner) {
    return {
      kind: 'invalid',
      secretName,
      message: `Secret ${secretName} belongs to an earlier Ship of this name (uid ${staleOwner.uid}); waiting for it to be garbage-collected before a pair is generated`,
    };
  }
  const shipToken = decoded(secret, TOKEN_KEYS.shipToken) || undefined;
  const bridgeToken = decoded(secret, TOKEN_KEYS.bridgeToken) || undefined;
  if (shipToken && bridgeToken) {
    const rotation = secret.metadata?.annotations?.[TOKENS_ROTATION_ANNOTATION];
    return {
      kind: 'pair',
      secretName,
      shipToken,
      bridgeToken,
      ...(rotation ? { rotation } : {}),
      ...(secret.metadata?.resourceVersion ? { resourceVersion: secret.metadata.resourceVersion } : {}),
    };
  }
  if (!shipToken && !bridgeToken) {
    // A Generated Secret without its keys was not written by the operator (it writes both): never fill it in.
    if (mode === 'Generated')
      return {
        kind: 'invalid',
        secretName,
        message: `Secret ${secretName} exists but holds neither shipToken nor bridgeToken; the operator never overwrites a Secret: delete it to have a pair generated`,
      };
    return { kind: 'none', secretName };
  }
  const missing = shipToken ? TOKEN_KEYS.bridgeToken : TOKEN_KEYS.shipToken;
  return {
    kind: 'invalid',
    secretName,
    message: `Secret ${secretName} holds only one of shipToken and bridgeToken (${missing} is missing or empty): a ship is registered with both or neither`,
  };
}

/**
 * Which pair a registration was made with, for the status: 16 hex digits of SHA-256 over both tokens. The
 * tokens are 32 random bytes each, so this reveals nothing that helps to guess them.
 */
export function tokenFingerprint(pair: { shipToken: string; bridgeToken: string }): string {
  return createHash('sha256').update(`${pair.shipToken}\n${pair.bridgeToken}`).digest('hex').slice(0, 16);
}

/**
 * The rotation a Generated pair owes its Ship: the Ship's ROTATE_TOKENS_ANNOTATION value when the Secret was
 * not yet written for it (the Secret records the value it was rotated for), else undefined.
 */
export function rotationRequested(
  ship: Pick<ShipResource, 'metadata' | 'spec'>,
  tokens: TokenState,
): string | undefined {
  if (authModeOf(ship) !== 'Generated' || tokens.kind !== 'pair') return undefined;
  const wanted = ship.metadata.annotations?.[ROTATE_TOKENS_ANNOTATION];
  return wanted && wanted !== tokens.rotation ? wanted : undefined;
}

/** A fresh pair: each token 32 bytes of CSPRNG output in base64url (spec rule 3), as the bridge issues its own. */
export function newTokenPair(): { shipToken: string; bridgeToken: string } {
  return { shipToken: newToken(), bridgeToken: newToken() };
}

/** The Generated Secret for `ship`: type Opaque, both keys, owned by the Ship (garbage-collected with it). */
export function generatedTokenSecret(
  ship: ShipResource,
  pair: { shipToken: string; bridgeToken: string },
  rotation?: string,
): V1Secret {
  const owner: V1OwnerReference = {
    apiVersion: ship.apiVersion,
    kind: ship.kind,
    name: ship.metadata.name ?? '',
    uid: ship.metadata.uid ?? '',
    controller: true,
  };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: generatedTokenSecretName(ship.metadata.name ?? ''),
      namespace: ship.metadata.namespace,
      labels: { ...MANAGED_BY_OPERATOR },
      ...(rotation ? { annotations: { [TOKENS_ROTATION_ANNOTATION]: rotation } } : {}),
      ownerReferences: [owner],
    },
    data: {
      [TOKEN_KEYS.shipToken]: Buffer.from(pair.shipToken).toString('base64'),
      [TOKEN_KEYS.bridgeToken]: Buffer.from(pair.bridgeToken).toString('base64'),
    },
  };
}
