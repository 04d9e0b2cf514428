// The Ship reconciler: reads the Ship from the cache, then alternates decideShip (pure, ship-decide.ts) and
// the one action it asks for — a finalizer patch, the Generated token Secret, a bridge call — folding each
// outcome into the facts, until the decision is a status to write. Tokens travel from the Secret to the POST
// body here and nowhere else: no action, log line, event or status field carries one.
// Watches: the Secrets the operator created (OPERATOR_SECRETS_SELECTOR): one created, changed or deleted
// re-reconciles the Ships using it. A user's secretRef Secret is not watched: it is read from the API server
// at each reconcile (a Ship event, or the refresh), so a change to it is seen within refreshMs.
import type { KubernetesObject, V1Secret } from '@kubernetes/client-node';
import {
  alreadyRegisteredName,
  probeRefusalStatus,
  SHIP_TAKEN_STATUS,
  SHIP_UNREACHABLE_STATUS,
} from '../../protocol/ship-registration.js';
import { isRefusal, type Refusal } from '../../server/request-failed.js';
import type { ShipInfo } from '../../protocol/index.js';
import type { ShipResource } from '../resources/index.js';
import type { ObjectKey, ReconcileResult, Reconciler, SecondaryWatch } from '../runtime/controller.js';
import { claimsAgainst } from './claims.js';
import { findCondition, kubeTime } from './conditions.js';
import type { ReconcileDeps } from './context.js';
import { settle, SharedSteps, troubleOf, type Step } from './executor.js';
import { OPERATOR_SECRETS_SELECTOR, SECRET_RESOURCE, SHIP_RESOURCE } from './names.js';
import { decideShip, type ShipAction, type ShipFacts, type ShipRegisterOutcome } from './ship-decide.js';
import { generatedTokenSecret, newTokenPair, readTokens, tokenSecretNameOf } from './tokens.js';

type ShipObject = ShipResource & KubernetesObject;

/** How the bridge's refusal of POST /ships reads for a Ship (its formats: protocol/ship-registration.ts). */
export function registerOutcomeOf(error: Refusal): ShipRegisterOutcome {
  const taken = error.status === SHIP_TAKEN_STATUS ? alreadyRegisteredName(error.detail) : undefined;
  if (taken !== undefined) return { kind: 'taken', name: taken };
  if (error.status === SHIP_UNREACHABLE_STATUS) {
    // The ship's 401 to the bridge's probe: it was started with another SVC_BRIDGE_TOKEN than we register.
    if (probeRefusalStatus(error.detail) === 401) return { kind: 'tokensRefused', message: error.detail };
    return { kind: 'unreachable', message: error.detail };
  }
  return { kind: 'refused', status: error.status, message: error.detail };
}

export class ShipReconciler implements Reconciler {
  readonly kind = 'Ship';
  readonly resource = SHIP_RESOURCE;
  readonly watches: readonly SecondaryWatch[];
  /** When each Ship (by uid) last found a NameMismatch, to re-probe only every nameMismatchRetryMs. */
  private readonly mismatchProbes = new Map<string, { generation: number | undefined; at: number }>();
  private readonly steps: SharedSteps<ShipObject, ShipInfo>;

  constructor(private readonly deps: ReconcileDeps) {
    this.steps = new SharedSteps(
      deps.cluster,
      SHIP_RESOURCE,
      deps.rosters.ships,
      (name) => deps.bridge.deregisterShip(name),
      (status) => ({ shipName: status.shipName, bridgeStatus: status.bridgeStatus }),
    );
    this.watches = [
      { resource: SECRET_RESOURCE, labelSelector: OPERATOR_SECRETS_SELECTOR, map: (secret) => this.shipsUsing(secret) },
    ];
  }

  /** The Ships a Secret holds tokens for: its Ship owners (Generated) and Ships naming it in secretRef. */
  private shipsUsing(secret: KubernetesObject): ObjectKey[] {
    const namespace = secret.metadata?.namespace ?? '';
    const name = secret.metadata?.name ?? '';
    const keys = new Map<string, ObjectKey>();
    for (const owner of secret.metadata?.ownerReferences ?? [])
      if (owner.kind === 'Ship') keys.set(owner.name, { namespace, name: owner.name });
    for (const ship of this.deps.cache.list<ShipResource & KubernetesObject>(SHIP_RESOURCE, namespace)) {
      if (ship.spec?.auth?.mode === 'Secret' && ship.spec.auth.secretRef?.name === name)
        keys.set(ship.metadata.name ?? '', { namespace, name: ship.metadata.name ?? '' });
    }
    return [...keys.values()];
  }

  async reconcile(key: ObjectKey, signal?: AbortSignal): Promise<ReconcileResult | undefined> {
    const { cache, options } = this.deps;
    const ship = cache.get<ShipResource & KubernetesObject>(SHIP_RESOURCE, key);
    if (!ship) {
      return;
    }
    const log = this.deps.log.child({ ship: `${key.namespace}/${key.name}` });
    const now = this.deps.clock();
    const uid = ship.metadata.uid ?? `${key.namespace}/${key.name}`;
    const probe = this.mismatchProbes.get(uid);
    const facts: ShipFacts = {
      ship,
      now: kubeTime(now),
      ...(await this.tokens(ship)),
      claims: claimsAgainst(
        ship,
        cache.list<ShipResource & KubernetesObject>(SHIP_RESOURCE),
        (other) => other.status?.shipName,
      ),
      posts: 0,
      removed: [],
      mayProbe: !(
        probe &&
        probe.generation === ship.metadata.generation &&
        now - probe.at < options.nameMismatchRetryMs &&
        findCondition(ship.status?.conditions, 'Registered')?.reason === 'NameMismatch'
      ),
      refreshMs: options.refreshMs,
      bridgeRetryMs: options.bridgeRetryMs,
      shipRetryMs: options.shipRetryMs,
    };
    const settled = await settle(
      `Ship ${key.namespace}/${key.name}`,
      signal,
      log,
      () => decideShip(facts),
      (action) => this.perform(facts, action, log),
    );
    if (!settled) return;
    const { action, result } = settled;
    if (action.kind === 'finish') {
      const registered = findCondition(action.status.conditions, 'Registered')?.reason;
      if (facts.posts > 0 && registered === 'NameMismatch')
        this.mismatchProbes.set(uid, { generation: ship.metadata.generation, at: now });
      else if (registered !== 'NameMismatch') this.mismatchProbes.delete(uid);
    }
    if (action.kind === 'done' || action.kind === 'removeFinalizer') this.mismatchProbes.delete(uid);
    return result;
  }

  /**
   * The Secret's token pair as the Ship's auth mode asks: the cache first (the Secrets the operator made),
   * the API server on a miss (a user's Secret, or one of ours the watch has not shown yet).
   */
  private async tokens(ship: ShipResource): Promise<Pick<ShipFacts, 'tokens' | 'tokensWatched'>> {
    const secretName = tokenSecretNameOf(ship);
    if (!secretName) return { tokens: readTokens(ship, undefined), tokensWatched: false };
    const namespace = ship.metadata.namespace ?? '';
    const cached = this.deps.cache.get<V1Secret & KubernetesObject>(SECRET_RESOURCE, { namespace, name: secretName });
    return {
      tokens: readTokens(ship, cached ?? (await this.deps.cluster.readSecret(namespace, secretName))),
      tokensWatched: cached !== undefined,
    };
  }

  private async perform(facts: ShipFacts, action: ShipAction, log: ReconcileDeps['log']): Promise<Step> {
    const { cluster, bridge, rosters } = this.deps;
    const ship = facts.ship as ShipObject;
    if (this.steps.handles(action)) {
      const { step, object } = await this.steps.perform(ship, facts, action, log);
      if (object) facts.ship = object;
      return step;
    }
    switch (action.kind) {
      case 'createTokenSecret': {
        const pair = newTokenPair();
        const created = await cluster.createSecret(generatedTokenSecret(ship, pair));
        if (created === 'created') {
          log.info({ secret: action.secretName }, 'created the token Secret');
          facts.tokens = { kind: 'pair', secretName: action.secretName, ...pair };
        } else {
          // Created by an earlier reconcile the cache has not shown yet: use what is stored, never a new pair.
          facts.tokens = readTokens(ship, await cluster.readSecret(ship.metadata.namespace ?? '', action.secretName));
          if (facts.tokens.kind === 'absent')
            throw new Error(`Secret ${action.secretName} exists but could not be read`);
        }
        return 'continue';
      }
      case 'rotateTokenSecret': {
        const pair = newTokenPair();
        const current = facts.tokens.kind === 'pair' ? facts.tokens.resourceVersion : undefined;
        const secret = generatedTokenSecret(ship, pair, action.rotation);
        // Optimistic: a Secret changed since it was read answers 409, and the runtime retries from the new one.
        await cluster.replaceSecret({ ...secret, metadata: { ...secret.metadata, resourceVersion: current } });
        log.info({ secret: action.secretName, rotation: action.rotation }, 'rotated the token pair');
        facts.tokens = { kind: 'pair', secretName: action.secretName, ...pair, rotation: action.rotation };
        return 'continue';
      }
      case 'register': {
        const tokens = facts.tokens;
        const body =
          tokens.kind === 'pair'
            ? { url: ship.spec.url, shipToken: tokens.shipToken, bridgeToken: tokens.bridgeToken }
            : { url: ship.spec.url };
        facts.posts += 1;
        try {
          facts.posted = { kind: 'created', info: await bridge.registerShip(body) };
          rosters.ships.put(facts.posted.info);
          log.info({ shipName: facts.posted.info.name, url: facts.posted.info.url }, 'registered with the bridge');
        } catch (error) {
          if (!isRefusal(error)) {
            rosters.ships.forget();
            facts.bridgeTrouble = troubleOf(error);
            return 'continue';
          }
          facts.posted = registerOutcomeOf(error);
          log.info(
            { outcome: facts.posted.kind, status: error.status, detail: error.detail },
            'the bridge refused the registration',
          );
        }
        if (facts.posted.kind === 'taken') {
          try {
            facts.roster = await rosters.ships.get({ fresh: true });
          } catch (error) {
            facts.bridgeTrouble = troubleOf(error);
          }
        }
        return 'continue';
      }
    }
  }
}
