// What to do next for one Ship, as a pure function of what has been observed so far (no I/O, no clock):
// decideShip(facts) → one action. The executor (ship.ts) performs it, folds the outcome into the facts and
// asks again, until the answer is `finish` (the status to write and when to look again). Tested as a table
// (test/operator/reconcile-decide.test.ts). The phases after the roster live in ship-register-decide.ts, the
// status they finish with in ship-status.ts.
//
// The rules (issue #19, docs/architecture.md §10; docs/DECISIONS.md "Kubernetes: the operator's reconcilers"):
// - `status.shipName` is the registration this Ship holds; holding is what lets it adopt, keep, replace or
//   deregister a name. Another Ship holding a name blocks acquiring it (NameConflict).
// - Registration is POST-first: a changed URL, a name taken at another URL, or no registration at all all
//   begin with POST /ships, so nothing is deregistered until the ship at the new URL has answered the
//   bridge's probe and said its name. A 409 `ship already registered: N` then tells the name: N at our URL is
//   adopted; N elsewhere (and not another Ship's) is replaced — DELETE, POST again, with an Event.
// - spec.expectedName is checked against the name the ship reports; a mismatch is never adopted: a
//   registration made (or held) under the wrong name is deregistered and Registered=False NameMismatch.
// - Rotation: a Generated pair is replaced in its Secret when the Ship's svc.dev/rotate-tokens annotation asks
//   for it; a held registration made with another pair than the Secret's (status.tokenFingerprint) is made
//   again (TokensChanged), so the bridge always holds the Secret's pair.
// - Tokens come first: a Generated Secret is created before the first POST (so the registration and the
//   ship pod always see the same pair); an unusable Secret stops before the bridge (TokensInvalid). A held
//   registration made with another Secret than spec.auth now names is made again (TokensChanged).
import type { ShipInfo } from '../../protocol/index.js';
import { FINALIZER, type ShipResource, type ShipResourceStatus } from '../resources/index.js';
import { REASONS, type ConditionInput } from './conditions.js';
import { readyEvents, type EventSpec, type RegistrationFacts } from './outcomes.js';
import { afterPost, sceneOf, withOwnRegistration, withoutRegistration } from './ship-register-decide.js';
import { bridgeTrouble, sameShipUrl, shipStatus } from './ship-status.js';
import { rotationRequested, type TokenState } from './tokens.js';

/** The answer to one POST /ships. */
export type ShipRegisterOutcome =
  | { kind: 'created'; info: ShipInfo }
  /** 409 `ship already registered: <name>`: the ship at our URL reports `name`. */
  | { kind: 'taken'; name: string }
  /** 502 whose cause is the ship answering 401: it refused the bridge token we registered with. */
  | { kind: 'tokensRefused'; message: string }
  /** 502 `ship at <url> did not respond: …`. */
  | { kind: 'unreachable'; message: string }
  /** Any other refusal (400, a 409 about workspaces hosted elsewhere…). */
  | { kind: 'refused'; status: number; message: string };

export interface ShipFacts extends RegistrationFacts<ShipInfo, ShipRegisterOutcome> {
  ship: ShipResource;
  tokens: TokenState;
  /**
   * The tokens' Secret is one the operator watches (it made it): a change to it is an event, so unusable
   * tokens need no timed re-check. A user's Secret (not watched) is re-read at the refresh.
   */
  tokensWatched: boolean;
  /** False while a NameMismatch of this generation is recent: do not probe the ship again yet. */
  mayProbe: boolean;
  shipRetryMs: number;
}

export type DeregisterWhy = 'delete' | 'replace' | 'conflict' | 'mismatch' | 'superseded' | 'tokens';

export type ShipAction =
  | { kind: 'addFinalizer' }
  | { kind: 'removeFinalizer'; event?: EventSpec }
  | { kind: 'createTokenSecret'; secretName: string }
  /** Write a fresh pair into the Generated Secret, recording `rotation` (the Ship's request) on it. */
  | { kind: 'rotateTokenSecret'; secretName: string; rotation: string }
  | { kind: 'readRoster' }
  /** POST /ships with spec.url and the pair in facts.tokens (never carried here, so an action can be logged). */
  | { kind: 'register' }
  | { kind: 'deregister'; name: string; why: DeregisterWhy; event?: EventSpec }
  /** Write this status (when it differs from the stored one), record the events, look again after requeueAfterMs. */
  | { kind: 'finish'; status: ShipResourceStatus; events: EventSpec[]; requeueAfterMs?: number }
  /** Nothing to do (a deleted Ship whose finalizer is gone). */
  | { kind: 'done' };

/** decideShip by phase: deletion, the finalizer, the tokens, the bridge's roster, then the registration. */
export function decideShip(facts: ShipFacts): ShipAction {
  const { ship } = facts;
  if (ship.metadata.deletionTimestamp) return decideShipDeletion(facts);
  if (!(ship.metadata.finalizers ?? []).includes(FINALIZER)) return { kind: 'addFinalizer' };
  const tokenStep = decideTokens(facts);
  if (tokenStep) return tokenStep;
  if (facts.bridgeTrouble) return bridgeTrouble(facts, facts.bridgeTrouble, false);
  if (!facts.roster) return { kind: 'readRoster' };
  const scene = sceneOf(facts, facts.roster);
  if (facts.posted) return afterPost(scene, facts.posted);
  if (scene.ownRegistration) return withOwnRegistration(scene, scene.ownRegistration);
  return withoutRegistration(scene);
}

/** Tokens come first: create or rotate the Generated Secret, or stop on an unusable one (TokensInvalid). */
function decideTokens(facts: ShipFacts): ShipAction | undefined {
  const tokens = facts.tokens;
  if (tokens.kind === 'absent') return { kind: 'createTokenSecret', secretName: tokens.secretName };
  const rotation = rotationRequested(facts.ship, tokens);
  if (rotation !== undefined) return { kind: 'rotateTokenSecret', secretName: tokens.secretName!, rotation };
  if (tokens.kind !== 'invalid') return undefined;
  const ready: ConditionInput = {
    type: 'Ready',
    status: 'False',
    reason: REASONS.TokensInvalid,
    message: tokens.message,
  };
  // Nothing changes until the Secret or the Ship does (no bridge call was made): a watched Secret's
  // change is an event; a user's Secret is not watched, so it is read again at the refresh.
  const requeueAfterMs = facts.tokensWatched ? undefined : facts.refreshMs;
  return {
    kind: 'finish',
    status: shipStatus(facts, 'unchanged', 'unchanged', ready),
    events: readyEvents(facts.ship, ready),
    requeueAfterMs,
  };
}

/** A Ship being deleted: deregister per spec.deletionPolicy, then let it go. */
function decideShipDeletion(facts: ShipFacts): ShipAction {
  const { ship } = facts;
  if (!(ship.metadata.finalizers ?? []).includes(FINALIZER)) return { kind: 'done' };
  if ((ship.spec.deletionPolicy ?? 'Deregister') === 'Orphan') return { kind: 'removeFinalizer' };
  if (facts.bridgeTrouble) return bridgeTrouble(facts, facts.bridgeTrouble, true);
  const removed = new Set(facts.removed);
  const own = ship.status?.shipName;
  const deregistered = (name: string): EventSpec => ({
    type: 'Normal',
    reason: 'Deregistered',
    message: `deregistered ship ${name} from the bridge`,
  });
  if (own) {
    // Held by a senior Ship as well (a race): that one keeps it; this one only lets go.
    if (facts.claims.get(own)?.senior) return { kind: 'removeFinalizer' };
    if (!removed.has(own)) return { kind: 'deregister', name: own, why: 'delete' };
    return { kind: 'removeFinalizer', event: deregistered(own) };
  }
  // No registration recorded; one may exist if the operator stopped between POST /ships and the status write.
  if (!facts.roster) return { kind: 'readRoster' };
  const expected = ship.spec.expectedName;
  const orphan = facts.roster.find(
    (entry) =>
      sameShipUrl(entry.url, ship.spec.url) &&
      !removed.has(entry.name) &&
      !facts.claims.get(entry.name) &&
      (expected === undefined || entry.name === expected),
  );
  if (orphan) return { kind: 'deregister', name: orphan.name, why: 'delete' };
  const gone = facts.removed[0];
  return { kind: 'removeFinalizer', ...(gone ? { event: deregistered(gone) } : {}) };
}
