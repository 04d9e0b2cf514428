// The registration phases of decideShip (operator/reconcile/ship-decide.ts), once the tokens are usable and
// the bridge's roster is read: after a POST /ships (created, taken, or refused), with a registration this
// Ship holds (keep it, or make it again for a new Secret or pair), and with none (adopt one at our URL, or
// POST). Pure; the rules are the ones in ship-decide.ts's header.
import type { ShipInfo } from '../../protocol/index.js';
import { describeClaim, type Claim } from './claims.js';
import { findCondition, REASONS, type ConditionInput } from './conditions.js';
import type { ShipAction, ShipFacts, ShipRegisterOutcome } from './ship-decide.js';
import {
  adoptedEvent,
  currentFingerprint,
  currentSecretName,
  notRegistered,
  registeredAs,
  registration,
  sameShipUrl,
  shipStatus,
  type Held,
} from './ship-status.js';

/** What every registration phase reads: the Ship's URL and expected name, the roster as this reconcile left it. */
interface Scene {
  facts: ShipFacts;
  url: string;
  expected: string | undefined;
  removed: Set<string>;
  roster: readonly ShipInfo[];
  /** The name this Ship's status holds, and its roster entry (named `own`) while the bridge still has it. */
  own: string | undefined;
  ownRegistration: ShipInfo | undefined;
}

export function sceneOf(facts: ShipFacts, roster: readonly ShipInfo[]): Scene {
  const removed = new Set(facts.removed);
  const own = facts.ship.status?.shipName;
  const scene = { facts, url: facts.ship.spec.url, expected: facts.ship.spec.expectedName, removed, roster, own };
  return { ...scene, ownRegistration: held(scene, own) };
}

/** The roster's entry for `name`, unless this reconcile removed it. */
function held(scene: Pick<Scene, 'removed' | 'roster'>, name: string | undefined): ShipInfo | undefined {
  return name && !scene.removed.has(name) ? scene.roster.find((entry) => entry.name === name) : undefined;
}

/** The registration this Ship still holds, as its status keeps it while another is refused. */
function ownHeld(scene: Scene): Held {
  return scene.ownRegistration ? registration(scene.ownRegistration) : null;
}

function conflict(scene: Scene, name: string, claim: Claim, heldNow: Held): ShipAction {
  const text = `ship name ${name} is held by ${describeClaim('Ship', claim)}; this Ship does not take it over`;
  return notRegistered(scene.facts, REASONS.NameConflict, text, heldNow, scene.facts.refreshMs);
}

function mismatch(scene: Scene, reported: string): ShipAction {
  const text = `the ship at ${scene.url} reports the name ${reported}, but spec.expectedName is ${scene.expected}; it is not registered under the unexpected name`;
  return notRegistered(scene.facts, REASONS.NameMismatch, text, null, scene.facts.refreshMs);
}

/** After POST /ships in this reconcile: what its answer means for the registration. */
export function afterPost(scene: Scene, posted: ShipRegisterOutcome): ShipAction {
  const { facts, url } = scene;
  switch (posted.kind) {
    case 'created':
      return afterCreated(scene, posted.info);
    case 'taken':
      return afterTaken(scene, posted.name);
    case 'tokensRefused':
      return notRegistered(
        facts,
        REASONS.TokensInvalid,
        `the ship at ${url} refused the bridge token this Ship registers with (the ship's SVC_BRIDGE_TOKEN differs from the Secret's bridgeToken, or the ship requires one and mode is None): ${posted.message}`,
        ownHeld(scene),
        facts.refreshMs,
      );
    case 'unreachable':
      return notRegistered(facts, REASONS.ShipUnreachable, posted.message, ownHeld(scene), facts.shipRetryMs);
    case 'refused':
      return notRegistered(
        facts,
        REASONS.RegistrationRefused,
        `the bridge refused the registration (${posted.status}): ${posted.message}`,
        ownHeld(scene),
        facts.refreshMs,
      );
  }
}

/** 201: the bridge registered the ship under the name it reports; keep it only if that name is ours to hold. */
function afterCreated(scene: Scene, info: ShipInfo): ShipAction {
  const { facts, removed, expected, own, ownRegistration, url } = scene;
  const name = info.name;
  const claim = facts.claims.get(name);
  if (claim)
    return removed.has(name) ? conflict(scene, name, claim, null) : { kind: 'deregister', name, why: 'conflict' };
  if (expected !== undefined && name !== expected)
    return removed.has(name) ? mismatch(scene, name) : { kind: 'deregister', name, why: 'mismatch' };
  // The ship at the new URL reports another name than the one this Ship held: the old one goes.
  if (own && own !== name && ownRegistration) {
    return {
      kind: 'deregister',
      name: own,
      why: 'superseded',
      event: {
        type: 'Normal',
        reason: 'Deregistered',
        message: `deregistered ship ${own} at ${ownRegistration.url}: the ship at ${url} reports the name ${name}`,
      },
    };
  }
  return registeredAs(facts, registration(info), [
    { type: 'Normal', reason: 'Registered', message: `registered ship ${name} at ${info.url}` },
  ]);
}

/** 409 `ship already registered: <name>`: adopt it at our URL, replace it elsewhere, or give up after two POSTs. */
function afterTaken(scene: Scene, name: string): ShipAction {
  const { facts, expected, own, ownRegistration, url } = scene;
  const claim = facts.claims.get(name);
  if (claim) return conflict(scene, name, claim, ownHeld(scene));
  if (expected !== undefined && name !== expected) {
    if (own === name && ownRegistration) return { kind: 'deregister', name, why: 'mismatch' };
    return mismatch(scene, name);
  }
  const existing = held(scene, name);
  if (existing && sameShipUrl(existing.url, url)) {
    if (own && own !== name && ownRegistration) return { kind: 'deregister', name: own, why: 'superseded' };
    return registeredAs(facts, registration(existing), own === name ? [] : [adoptedEvent(name, existing.url)]);
  }
  if (existing) {
    return {
      kind: 'deregister',
      name,
      why: 'replace',
      event: {
        type: 'Normal',
        reason: 'URLChanged',
        message: `ship ${name} was registered at ${existing.url}; the ship at ${url} reports the same name: deregistered it to register ${url}`,
      },
    };
  }
  if (facts.posts < 2) return { kind: 'register' };
  return notRegistered(
    facts,
    REASONS.RegistrationRefused,
    `the bridge still answers "ship already registered: ${name}" after the old registration was removed`,
    null,
    facts.refreshMs,
  );
}

/** No POST yet, and the bridge still has the registration this Ship holds: keep it, or make it again. */
export function withOwnRegistration(scene: Scene, ownRegistration: ShipInfo): ShipAction {
  const { facts, expected, url } = scene;
  const own = ownRegistration.name;
  const claim = facts.claims.get(own);
  if (claim?.senior) return conflict(scene, own, claim, null);
  if (expected !== undefined && own !== expected) return { kind: 'deregister', name: own, why: 'mismatch' };
  // spec.url changed: register the new URL first; the old registration goes once the new ship has answered.
  if (!sameShipUrl(ownRegistration.url, url)) return { kind: 'register' };
  return tokensChanged(facts, own) ?? registeredAs(facts, registration(ownRegistration));
}

/**
 * The held registration was made with other tokens than this reconcile's: deregister it so it is made again
 * with them (the bridge holds the old pair, GET /ships cannot show it, and a held name cannot be POSTed).
 */
function tokensChanged(facts: ShipFacts, own: string): ShipAction | undefined {
  const status = facts.ship.status;
  const again = (message: string): ShipAction => ({
    kind: 'deregister',
    name: own,
    why: 'tokens',
    event: { type: 'Normal', reason: 'TokensChanged', message },
  });
  // spec.auth now names another Secret (or mode).
  const before = status?.tokenSecretName;
  const now = currentSecretName(facts);
  if ((before ?? null) !== (now ?? null))
    return again(
      `ship ${own} was registered with the tokens of ${before ? `Secret ${before}` : 'no Secret'}; deregistered it to register with ${now ? `Secret ${now}` : 'no tokens'}`,
    );
  // The same Secret holds another pair (rotated, or edited by its owner). A status without a fingerprint
  // (written before fingerprints) is taken to match.
  const made = status?.tokenFingerprint;
  if (made !== undefined && made !== currentFingerprint(facts))
    return again(
      `the token pair in ${now ? `Secret ${now}` : 'no Secret'} changed; deregistered ship ${own} to register it with the new pair`,
    );
  return undefined;
}

/** No POST yet and no registration held: wait out a recent NameMismatch, adopt one at our URL, or POST. */
export function withoutRegistration(scene: Scene): ShipAction {
  const { facts, expected, url, removed, roster } = scene;
  if (!facts.mayProbe) {
    // A NameMismatch of this generation was found moments ago: keep what it says until the retry interval passes.
    const before = findCondition(facts.ship.status?.conditions, 'Ready');
    const ready: ConditionInput = {
      type: 'Ready',
      status: 'False',
      reason: REASONS.NameMismatch,
      message: before?.message ?? `the ship at ${url} reports another name than spec.expectedName ${expected}`,
    };
    return {
      kind: 'finish',
      status: shipStatus(facts, null, 'unchanged', ready),
      events: [],
      requeueAfterMs: facts.refreshMs,
    };
  }
  if (expected !== undefined) {
    const existing = held(scene, expected);
    if (existing) {
      const claim = facts.claims.get(expected);
      if (claim) return conflict(scene, expected, claim, null);
      if (sameShipUrl(existing.url, url))
        return registeredAs(facts, registration(existing), [adoptedEvent(expected, existing.url)]);
    }
    return { kind: 'register' };
  }
  const atUrl = roster.filter((entry) => sameShipUrl(entry.url, url) && !removed.has(entry.name));
  const free = atUrl.find((entry) => !facts.claims.get(entry.name));
  if (free) return registeredAs(facts, registration(free), [adoptedEvent(free.name, free.url)]);
  const taken = atUrl[0];
  if (taken) return conflict(scene, taken.name, facts.claims.get(taken.name)!, null);
  return { kind: 'register' };
}
