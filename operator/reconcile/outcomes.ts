// What the Ship and Repo decisions (ship-decide.ts, repo-decide.ts) are made of alike: the conditions and
// observedGeneration a reconcile ends with, the Warning Event of a change of the Ready reason, and how a
// bridge that cannot be asked reads. Pure, as the decide functions are. Not here: which outcome applies
// when, and the kind's own status fields (the holding of a name), which each decide module writes.
import type { Condition } from '../resources/index.js';
import type { Claim } from './claims.js';
import { findCondition, REASONS, setCondition, type ConditionInput, type Reason } from './conditions.js';

/** A failed bridge call that says nothing about the object: the bridge is down or refuses the operator. */
export interface BridgeTrouble {
  kind: 'unavailable' | 'unauthorized';
  message: string;
}

/** A Kubernetes Event about the reconciled object. */
export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** What both kinds' decisions read beside the object itself; the executor fills it in as it goes. */
export interface RegistrationFacts<Entry, Posted> {
  /** RFC 3339, for condition transition times. */
  now: string;
  /** Bridge names held by other objects of the kind. */
  claims: ReadonlyMap<string, Claim>;
  /** The bridge's roster, once read in this reconcile (refreshed after a 409). */
  roster?: readonly Entry[];
  bridgeTrouble?: BridgeTrouble;
  /** The last POST of this reconcile, and how many were made. */
  posted?: Posted;
  posts: number;
  /** Names deregistered in this reconcile (DELETE answered 200 or 404). */
  removed: readonly string[];
  refreshMs: number;
  bridgeRetryMs: number;
}

interface Observed {
  metadata: { generation?: number };
  status?: { conditions?: Condition[] };
}

/**
 * The status both kinds share after a reconcile: `registered` ('unchanged' keeps it) and `ready` set on the
 * conditions as they were, and the generation they were computed from.
 */
export function statusAfter(
  object: Observed,
  registered: ConditionInput | 'unchanged',
  ready: ConditionInput,
  now: string,
): { conditions: Condition[]; observedGeneration?: number } {
  const generation = object.metadata.generation;
  let conditions: Condition[] = [...(object.status?.conditions ?? [])];
  if (registered !== 'unchanged') conditions = setCondition(conditions, registered, generation, now);
  conditions = setCondition(conditions, ready, generation, now);
  return generation !== undefined ? { conditions, observedGeneration: generation } : { conditions };
}

/**
 * `extra`, and a Warning when Ready turns to another reason that is not ready — once, not on every
 * refresh. Not for Offline: a ship restart would flood the namespace with Events.
 */
export function readyEvents(object: Observed, ready: ConditionInput, extra: EventSpec[] = []): EventSpec[] {
  const before = findCondition(object.status?.conditions, 'Ready');
  const events = [...extra];
  if (before?.reason !== ready.reason && ready.status !== 'True' && ready.reason !== REASONS.Offline) {
    events.push({ type: 'Warning', reason: ready.reason, message: ready.message });
  }
  return events;
}

/** Registered=False and Ready=False for the same reason: the registration the object wanted did not happen. */
export function notRegisteredConditions(
  reason: Reason,
  message: string,
): { registered: ConditionInput; ready: ConditionInput } {
  const condition = { status: 'False' as const, reason, message };
  return { registered: { type: 'Registered', ...condition }, ready: { type: 'Ready', ...condition } };
}

/**
 * Ready=False for bridge trouble. What the bridge holds is unknown, so callers keep the registration and
 * the Registered condition as last seen. `deleting` names the object ('ship', 'repo') whose deletion waits.
 */
export function bridgeTroubleReady(trouble: BridgeTrouble, deleting?: string): ConditionInput {
  const reason = trouble.kind === 'unavailable' ? REASONS.BridgeUnavailable : REASONS.BridgeUnauthorized;
  const message = deleting
    ? `deletion waits for the bridge to deregister this ${deleting}: ${trouble.message}`
    : trouble.message;
  return { type: 'Ready', status: 'False', reason, message };
}
