// What the Ship and Repo executors (ship.ts, repo.ts) share: the loop around their decide functions —
// decide, perform the one action, fold its outcome into the facts, decide again until an action settles —
// and the actions both kinds take alike: the finalizer, reading the bridge's roster, removing a
// registration, and writing the status with its Events. A failure the bridge is to blame for goes into the
// facts as BridgeTrouble for the next decision; anything else (a Kubernetes API error) is thrown for the
// runtime's retry with backoff. Not here: each kind's own actions (registering; the Ship's token Secret).
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { FINALIZER, type Condition } from '../resources/index.js';
import type { ReconcileResult, ResourceRef } from '../runtime/controller.js';
import type { Cluster } from './cluster.js';
import { findCondition } from './conditions.js';
import { bridgeTroubleOf } from './context.js';
import type { BridgeTrouble, EventSpec, RegistrationFacts } from './outcomes.js';
import type { Roster } from './rosters.js';

/** What an action did: 'continue' asks for the next decision; anything else ends the reconcile with it. */
export type Step = 'continue' | ReconcileResult | undefined;

/** Actions one reconcile may take before it is considered stuck (the longest Ship path takes 7). */
const MAX_STEPS = 12;

/** The actions both kinds take the same way (their decide functions name them alike). */
type SharedAction =
  /** Nothing to do (a deleted object whose finalizer is gone). */
  | { kind: 'done' }
  | { kind: 'addFinalizer' }
  | { kind: 'removeFinalizer'; event?: EventSpec }
  | { kind: 'readRoster' }
  | { kind: 'deregister'; name: string; why: string; event?: EventSpec }
  /** Write this status (when it differs from the stored one), record the events, look again after requeueAfterMs. */
  | { kind: 'finish'; status: { conditions?: Condition[] }; events: EventSpec[]; requeueAfterMs?: number };

const SHARED: ReadonlySet<string> = new Set<SharedAction['kind']>([
  'done',
  'addFinalizer',
  'removeFinalizer',
  'readRoster',
  'deregister',
  'finish',
]);

/** The bridge failure in `error`, or `error` rethrown when it is not the bridge's (a Kubernetes API error). */
export function troubleOf(error: unknown): BridgeTrouble {
  const trouble = bridgeTroubleOf(error);
  if (!trouble) throw error;
  return trouble;
}

/**
 * Decides and performs until an action settles; the settling action and its result, or undefined when
 * `signal` aborted first. `perform` folds each outcome into the facts `decide` reads.
 */
export async function settle<A extends { kind: string }>(
  what: string,
  signal: AbortSignal | undefined,
  log: Logger,
  decide: () => A,
  perform: (action: A) => Promise<Step>,
): Promise<{ action: A; result: ReconcileResult | undefined } | undefined> {
  for (let step = 0; step < MAX_STEPS; step++) {
    if (signal?.aborted) return undefined;
    const action = decide();
    log.debug({ action: action.kind, ...('name' in action ? { name: action.name } : {}) }, 'reconcile step');
    const result = await perform(action);
    if (result !== 'continue') return { action, result };
  }
  throw new Error(`${what}: no settled decision after ${MAX_STEPS} steps`);
}

/** The shared actions, performed for one kind. */
export class SharedSteps<T extends KubernetesObject & { status?: object }, Entry extends { name: string }> {
  /** How log lines name a registration: 'shipName', 'repoName'. */
  private readonly nameField: string;

  /**
   * `deregister` is the kind's DELETE (`absent`: the bridge answered 404); `summary` picks the fields of a
   * written status worth a log line.
   */
  constructor(
    private readonly cluster: Cluster,
    private readonly resource: ResourceRef,
    private readonly roster: Roster<Entry>,
    private readonly deregister: (name: string) => Promise<'removed' | 'absent'>,
    private readonly summary: (status: Record<string, unknown>) => Record<string, unknown>,
  ) {
    this.nameField = `${resource.kind.toLowerCase()}Name`;
  }

  handles(action: { kind: string }): action is SharedAction {
    return SHARED.has(action.kind);
  }

  /** Performs `action` on `object`; a finalizer patch also answers the object as it is now. */
  async perform(
    object: T,
    facts: RegistrationFacts<Entry, unknown>,
    action: SharedAction,
    log: Logger,
  ): Promise<{ step: Step; object?: T }> {
    const { cluster, resource, roster } = this;
    switch (action.kind) {
      case 'done':
        return { step: undefined };
      case 'addFinalizer':
        return { step: 'continue', object: await cluster.addFinalizer(resource, object, FINALIZER) };
      case 'removeFinalizer':
        if (action.event) await cluster.recordEvent(object, action.event);
        await cluster.removeFinalizer(resource, object, FINALIZER);
        log.info('finalizer removed');
        return { step: {} };
      case 'readRoster':
        try {
          facts.roster = await roster.get();
        } catch (error) {
          facts.bridgeTrouble = troubleOf(error);
        }
        return { step: 'continue' };
      case 'deregister':
        try {
          const outcome = await this.deregister(action.name);
          roster.remove(action.name);
          log.info({ [this.nameField]: action.name, why: action.why, outcome }, 'deregistered from the bridge');
          facts.removed = [...facts.removed, action.name];
          if (action.event) await cluster.recordEvent(object, action.event);
        } catch (error) {
          roster.forget();
          facts.bridgeTrouble = troubleOf(error);
        }
        return { step: 'continue' };
      case 'finish': {
        const status = action.status as Record<string, unknown>;
        const wrote = await cluster.writeStatus(
          resource,
          object,
          object.status as Record<string, unknown> | undefined,
          status,
        );
        for (const event of action.events) await cluster.recordEvent(object, event);
        if (wrote) {
          const ready = findCondition(action.status.conditions, 'Ready');
          log.info({ ready: ready?.status, reason: ready?.reason, ...this.summary(status) }, 'status updated');
        }
        return { step: { requeueAfterMs: action.requeueAfterMs } };
      }
    }
  }
}
