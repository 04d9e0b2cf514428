// The status a Ship's reconcile finishes with (operator/reconcile/ship-decide.ts): which registration it holds,
// its Registered and Ready conditions, and the Secret and fingerprint of the pair that registration was made
// with. Pure, like decideShip; split from it so each phase there reads as a list of rules.
import type { ShipInfo } from '../../protocol/index.js';
import type { ShipResourceStatus } from '../resources/index.js';
import { REASONS, type ConditionInput, type Reason } from './conditions.js';
import {
  bridgeTroubleReady,
  notRegisteredConditions,
  readyEvents,
  statusAfter,
  type BridgeTrouble,
  type EventSpec,
} from './outcomes.js';
import type { ShipAction, ShipFacts } from './ship-decide.js';
import { tokenFingerprint } from './tokens.js';

/** The bridge stores a ship URL without trailing slashes; compare as it does. */
export function sameShipUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

export interface Registration {
  name: string;
  url: string;
  status: 'online' | 'offline';
}

export type Held = Registration | null | 'unchanged';

/**
 * The Ship's status after this reconcile. `held`: the registration it now holds (null: none; 'unchanged':
 * unknown, keep what the status says). `registered`: the Registered condition ('unchanged' keeps it).
 */
export function shipStatus(
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
export function currentFingerprint(facts: ShipFacts): string | undefined {
  return facts.tokens.kind === 'pair' ? tokenFingerprint(facts.tokens) : undefined;
}

/** The Secret the tokens of this reconcile come from (undefined for mode None). */
export function currentSecretName(facts: ShipFacts): string | undefined {
  return facts.tokens.secretName || undefined;
}

/** The registration this Ship wanted did not happen (Registered=False and Ready=False for `reason`). */
export function notRegistered(
  facts: ShipFacts,
  reason: Reason,
  text: string,
  held: Held,
  requeueAfterMs: number,
): ShipAction {
  const { registered, ready } = notRegisteredConditions(reason, text);
  return {
    kind: 'finish',
    status: shipStatus(facts, held, registered, ready),
    events: readyEvents(facts.ship, ready),
    requeueAfterMs,
  };
}

/** Registered=True; Ready follows the bridge's online/offline. */
export function registeredAs(facts: ShipFacts, registration: Registration, events: EventSpec[] = []): ShipAction {
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

/** The bridge could not be asked: the registration stays as the status says, Ready says why. */
export function bridgeTrouble(facts: ShipFacts, trouble: BridgeTrouble, deleting: boolean): ShipAction {
  const ready = bridgeTroubleReady(trouble, deleting ? 'ship' : undefined);
  return {
    kind: 'finish',
    status: shipStatus(facts, 'unchanged', 'unchanged', ready),
    events: readyEvents(facts.ship, ready),
    requeueAfterMs: facts.bridgeRetryMs,
  };
}

/** The part of a bridge roster entry a Ship's status records. */
export function registration(info: ShipInfo): Registration {
  return { name: info.name, url: info.url, status: info.status };
}

/** The Event for taking over a registration the bridge already had for this Ship's URL. */
export function adoptedEvent(name: string, url: string): EventSpec {
  return { type: 'Normal', reason: 'Adopted', message: `adopted the existing registration of ship ${name} at ${url}` };
}
