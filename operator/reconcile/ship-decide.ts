// What to do next for one Ship, as a pure function of what has been observed so far (no I/O, no clock):
// decideShip(facts) → one action. The executor (ship.ts) performs it, folds the outcome into the facts and
// asks again, until the answer is `finish` (the status to write and when to look again). Tested as a table
// (test/operator/reconcile-decide.test.ts).
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
import { describeClaim, type Claim } from './claims.js';
import { findCondition, REASONS, type ConditionInput, type Reason } from './conditions.js';
import {
  bridgeTroubleReady,
  notRegisteredConditions,
  readyEvents,
  statusAfter,
  type BridgeTrouble,
  type EventSpec,
  type RegistrationFacts,
} from './outcomes.js';
import { rotationRequested, tokenFingerprint, type TokenState } from './tokens.js';

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

/** The bridge stores a ship URL without trailing slashes; compare as it does. */
function sameShipUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

interface Registration {
  name: string;
  url: string;
  status: 'online' | 'offline';
}

type Held = Registration | null | 'unchanged';

/**
 * The Ship's status after this reconcile. `held`: the registration it now holds (null: none; 'unchanged':
 * unknown, keep what the status says). `registered`: the Registered condition ('unchanged' keeps it).
 */
function shipStatus(
  facts: ShipFacts,
  held: Held,
  registered: ConditionInput | 'unchanged',
  ready: ConditionInput,
): ShipResourceStatus {
  const previous = facts.ship.status ?? {};
  const status: ShipResourceStatus = statusAfter(facts.ship, registered, ready, facts.now);
  if (held === 'unchanged') {
    if (previous.shipName !== undefined) status.shipName = previous.shipName;
    if (previous.registeredURL !== undefined) status.registeredURL = previous.registeredURL;
    if (previous.bridgeStatus !== undefined) status.bridgeStatus = previous.bridgeStatus;
  } else if (held) {
    status.shipName = held.name;
    status.registeredURL = held.url;
    status.bridgeStatus = held.status;
  }
  // The Secret of the pair in use: while a registration is held and this reconcile could not re-check it
  // (bridge trouble, unusable tokens), the one it was made with; otherwise the one this reconcile used.
  const secretName =
    held === 'unchanged' && previous.shipName !== undefined ? previous.tokenSecretName : currentSecretName(facts);
  if (secretName) status.tokenSecretName = secretName;
  const fingerprint =
    held === 'unchanged' && previous.shipName !== undefined ? previous.tokenFingerprint : currentFingerprint(facts);
  if (fingerprint) status.tokenFingerprint = fingerprint;
  return status;
}

/** The fingerprint of the pair this reconcile uses (undefined without one). */
function currentFingerprint(facts: ShipFacts): string | undefined {
  return facts.tokens.kind === 'pair' ? tokenFingerprint(facts.tokens) : undefined;
}

/** The Secret the tokens of this reconcile come from (undefined for mode None). */
function currentSecretName(facts: ShipFacts): string | undefined {
  return facts.tokens.secretName || undefined;
}

/** The registration this Ship wanted did not happen (Registered=False and Ready=False for `reason`). */
function notRegistered(facts: ShipFacts, reason: Reason, text: string, held: Held, requeueAfterMs: number): ShipAction {
  const { registered, ready } = notRegisteredConditions(reason, text);
  return {
    kind: 'finish',
    status: shipStatus(facts, held, registered, ready),
    events: readyEvents(facts.ship, ready),
    requeueAfterMs,
  };
}

/** Registered=True; Ready follows the bridge's online/offline. */
function registeredAs(facts: ShipFacts, registration: Registration, events: EventSpec[] = []): ShipAction {
  const registered: ConditionInput = {
    type: 'Registered',
    status: 'True',
    reason: REASONS.Registered,
    message: `registered with the bridge as ${registration.name} at ${registration.url}`,
  };
  const ready: ConditionInput =
    registration.status === 'online'
      ? {
          type: 'Ready',
          status: 'True',
          reason: REASONS.Online,
          message: `the bridge reports ship ${registration.name} online`,
        }
      : {
          type: 'Ready',
          status: 'False',
          reason: REASONS.Offline,
          message: `the bridge reports ship ${registration.name} offline: it has no event stream to ${registration.url}`,
        };
  return {
    kind: 'finish',
    status: shipStatus(facts, registration, registered, ready),
    events: readyEvents(facts.ship, ready, events),
    requeueAfterMs: facts.refreshMs,
  };
}

function bridgeTrouble(facts: ShipFacts, trouble: BridgeTrouble, deleting: boolean): ShipAction {
  const ready = bridgeTroubleReady(trouble, deleting ? 'ship' : undefined);
  return {
    kind: 'finish',
    status: shipStatus(facts, 'unchanged', 'unchanged', ready),
    events: readyEvents(facts.ship, ready),
    requeueAfterMs: facts.bridgeRetryMs,
  };
}

function registration(info: ShipInfo): Registration {
  return { name: info.name, url: info.url, status: info.status };
}

export function decideShip(facts: ShipFacts): ShipAction {
  const { ship } = facts;
  if (ship.metadata.deletionTimestamp) return decideShipDeletion(facts);
  if (!(ship.metadata.finalizers ?? []).includes(FINALIZER)) return { kind: 'addFinalizer' };
  const tokens = facts.tokens;
  if (tokens.kind === 'absent') return { kind: 'createTokenSecret', secretName: tokens.secretName };
  const rotation = rotationRequested(ship, tokens);
  if (rotation !== undefined) return { kind: 'rotateTokenSecret', secretName: tokens.secretName!, rotation };
  if (tokens.kind === 'invalid') {
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
  if (facts.bridgeTrouble) return bridgeTrouble(facts, facts.bridgeTrouble, false);
  if (!facts.roster) return { kind: 'readRoster' };

  const url = ship.spec.url;
  const expected = ship.spec.expectedName;
  const removed = new Set(facts.removed);
  const roster = facts.roster;
  const held = (name: string | undefined) =>
    name && !removed.has(name) ? roster.find((entry) => entry.name === name) : undefined;
  const claimOf = (name: string) => facts.claims.get(name);
  const own = ship.status?.shipName;
  const ownRegistration = held(own);
  const conflict = (name: string, claim: Claim, held: Held) =>
    notRegistered(
      facts,
      REASONS.NameConflict,
      `ship name ${name} is held by ${describeClaim('Ship', claim)}; this Ship does not take it over`,
      held,
      facts.refreshMs,
    );
  const mismatch = (reported: string) =>
    notRegistered(
      facts,
      REASONS.NameMismatch,
      `the ship at ${url} reports the name ${reported}, but spec.expectedName is ${expected}; it is not registered under the unexpected name`,
      null,
      facts.refreshMs,
    );

  const posted = facts.posted;
  if (posted) {
    switch (posted.kind) {
      case 'created': {
        const name = posted.info.name;
        const claim = claimOf(name);
        if (claim)
          return removed.has(name) ? conflict(name, claim, null) : { kind: 'deregister', name, why: 'conflict' };
        if (expected !== undefined && name !== expected)
          return removed.has(name) ? mismatch(name) : { kind: 'deregister', name, why: 'mismatch' };
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
        return registeredAs(facts, registration(posted.info), [
          { type: 'Normal', reason: 'Registered', message: `registered ship ${name} at ${posted.info.url}` },
        ]);
      }
      case 'taken': {
        const name = posted.name;
        const claim = claimOf(name);
        if (claim) return conflict(name, claim, own && ownRegistration ? registration(ownRegistration) : null);
        if (expected !== undefined && name !== expected) {
          if (own === name && ownRegistration) return { kind: 'deregister', name, why: 'mismatch' };
          return mismatch(name);
        }
        const existing = held(name);
        if (existing && sameShipUrl(existing.url, url)) {
          if (own && own !== name && ownRegistration) return { kind: 'deregister', name: own, why: 'superseded' };
          return registeredAs(
            facts,
            registration(existing),
            own === name
              ? []
              : [
                  {
                    type: 'Normal',
                    reason: 'Adopted',
                    message: `adopted the existing registration of ship ${name} at ${existing.url}`,
                  },
                ],
          );
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
      case 'tokensRefused':
        return notRegistered(
          facts,
          REASONS.TokensInvalid,
          `the ship at ${url} refused the bridge token this Ship registers with (the ship's SVC_BRIDGE_TOKEN differs from the Secret's bridgeToken, or the ship requires one and mode is None): ${posted.message}`,
          own && ownRegistration ? registration(ownRegistration) : null,
          facts.refreshMs,
        );
      case 'unreachable':
        return notRegistered(
          facts,
          REASONS.ShipUnreachable,
          posted.message,
          own && ownRegistration ? registration(ownRegistration) : null,
          facts.shipRetryMs,
        );
      case 'refused':
        return notRegistered(
          facts,
          REASONS.RegistrationRefused,
          `the bridge refused the registration (${posted.status}): ${posted.message}`,
          own && ownRegistration ? registration(ownRegistration) : null,
          facts.refreshMs,
        );
    }
  }

  // No POST yet in this reconcile.
  if (own && ownRegistration) {
    const claim = claimOf(own);
    if (claim?.senior) return conflict(own, claim, null);
    if (expected !== undefined && own !== expected) return { kind: 'deregister', name: own, why: 'mismatch' };
    if (sameShipUrl(ownRegistration.url, url)) {
      // spec.auth now names another Secret (or mode): the bridge holds the old pair, and GET /ships cannot
      // show it, so the registration is made again with the new one (the name cannot be POSTed while held).
      const before = ship.status?.tokenSecretName;
      const now = currentSecretName(facts);
      if ((before ?? null) !== (now ?? null)) {
        return {
          kind: 'deregister',
          name: own,
          why: 'tokens',
          event: {
            type: 'Normal',
            reason: 'TokensChanged',
            message: `ship ${own} was registered with the tokens of ${before ? `Secret ${before}` : 'no Secret'}; deregistered it to register with ${now ? `Secret ${now}` : 'no tokens'}`,
          },
        };
      }
      // The same Secret holds another pair (rotated, or edited by its owner): register again with it. A status
      // without a fingerprint (written before fingerprints) is taken to match.
      const made = ship.status?.tokenFingerprint;
      const current = currentFingerprint(facts);
      if (made !== undefined && made !== current) {
        return {
          kind: 'deregister',
          name: own,
          why: 'tokens',
          event: {
            type: 'Normal',
            reason: 'TokensChanged',
            message: `the token pair in ${now ? `Secret ${now}` : 'no Secret'} changed; deregistered ship ${own} to register it with the new pair`,
          },
        };
      }
      return registeredAs(facts, registration(ownRegistration));
    }
    // spec.url changed: register the new URL first; the old registration goes once the new ship has answered.
    return { kind: 'register' };
  }
  if (!facts.mayProbe) {
    // A NameMismatch of this generation was found moments ago: keep what it says until the retry interval passes.
    const before = findCondition(ship.status?.conditions, 'Ready');
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
    const existing = held(expected);
    if (existing) {
      const claim = claimOf(expected);
      if (claim) return conflict(expected, claim, null);
      if (sameShipUrl(existing.url, url))
        return registeredAs(facts, registration(existing), [
          {
            type: 'Normal',
            reason: 'Adopted',
            message: `adopted the existing registration of ship ${expected} at ${existing.url}`,
          },
        ]);
    }
    return { kind: 'register' };
  }
  const atUrl = roster.filter((entry) => sameShipUrl(entry.url, url) && !removed.has(entry.name));
  const free = atUrl.find((entry) => !claimOf(entry.name));
  if (free)
    return registeredAs(facts, registration(free), [
      {
        type: 'Normal',
        reason: 'Adopted',
        message: `adopted the existing registration of ship ${free.name} at ${free.url}`,
      },
    ]);
  const taken = atUrl[0];
  if (taken) return conflict(taken.name, claimOf(taken.name)!, null);
  return { kind: 'register' };
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
