// The Repo reconciler: the executor around decideRepo (repo-decide.ts), in the same loop as the Ship's —
// read the Repo from the cache, perform the one action decided, fold the outcome in, decide again.
import type { KubernetesObject } from '@kubernetes/client-node';
import { BridgeRefused } from '../bridge-client.js';
import { FINALIZER, type RepoResource } from '../resources/index.js';
import type { ObjectKey, ReconcileResult, Reconciler } from '../runtime/controller.js';
import { claimsAgainst } from './claims.js';
import { findCondition, kubeTime } from './conditions.js';
import { bridgeTroubleOf, type ReconcileDeps } from './context.js';
import { REPO_RESOURCE } from './names.js';
import { decideRepo, type RepoAction, type RepoFacts } from './repo-decide.js';

const MAX_STEPS = 10;

export class RepoReconciler implements Reconciler {
  readonly kind = 'Repo';
  readonly resource = REPO_RESOURCE;

  constructor(private readonly deps: ReconcileDeps) {}

  async reconcile(key: ObjectKey, signal?: AbortSignal): Promise<ReconcileResult | void> {
    const { cache, options } = this.deps;
    const repo = cache.get<RepoResource & KubernetesObject>(REPO_RESOURCE, key);
    if (!repo) return;
    const log = this.deps.log.child({ repo: `${key.namespace}/${key.name}` });
    const facts: RepoFacts = {
      repo,
      now: kubeTime(this.deps.clock.now()),
      claims: claimsAgainst(repo, cache.list<RepoResource & KubernetesObject>(REPO_RESOURCE), (other) => other.status?.repoName),
      posts: 0,
      removed: [],
      refreshMs: options.refreshMs,
      bridgeRetryMs: options.bridgeRetryMs,
    };
    for (let step = 0; step < MAX_STEPS; step++) {
      if (signal?.aborted) return;
      const action = decideRepo(facts);
      log.debug({ action: action.kind }, 'repo reconcile step');
      const result = await this.perform(facts, action, log);
      if (result !== 'continue') return result;
    }
    throw new Error(`Repo ${key.namespace}/${key.name}: no settled decision after ${MAX_STEPS} steps`);
  }

  private async perform(facts: RepoFacts, action: RepoAction, log: ReconcileDeps['log']): Promise<'continue' | ReconcileResult | void> {
    const { cluster, bridge, rosters } = this.deps;
    const repo = facts.repo as RepoResource & KubernetesObject;
    const trouble = (error: unknown) => {
      const found = bridgeTroubleOf(error);
      if (!found) throw error;
      return found;
    };
    switch (action.kind) {
      case 'done':
        return;
      case 'addFinalizer':
        facts.repo = await cluster.addFinalizer(REPO_RESOURCE, repo, FINALIZER);
        return 'continue';
      case 'removeFinalizer':
        if (action.event) await cluster.recordEvent(repo, action.event);
        await cluster.removeFinalizer(REPO_RESOURCE, repo, FINALIZER);
        log.info('finalizer removed');
        return {};
      case 'listRepos':
        try {
          facts.roster = await rosters.repos();
        } catch (error) {
          facts.bridgeTrouble = trouble(error);
        }
        return 'continue';
      case 'register':
        facts.posts += 1;
        try {
          facts.posted = { kind: 'created', repo: await bridge.registerRepo(action.request) };
          rosters.repoRegistered(facts.posted.repo);
          log.info({ repoName: action.request.name }, 'registered with the bridge');
        } catch (error) {
          if (!(error instanceof BridgeRefused)) {
            rosters.reposUnknown();
            facts.bridgeTrouble = trouble(error);
            return 'continue';
          }
          if (error.status === 409) {
            // Registered by someone else since our read: look again (adopt if equal, replace if not).
            facts.posted = { kind: 'taken' };
            try {
              facts.roster = await rosters.repos({ fresh: true });
            } catch (listError) {
              facts.bridgeTrouble = trouble(listError);
            }
          } else {
            facts.posted = { kind: 'refused', status: error.status, message: error.detail };
          }
        }
        return 'continue';
      case 'deregister':
        try {
          const outcome = await bridge.deregisterRepo(action.name);
          rosters.repoRemoved(action.name);
          log.info({ repoName: action.name, why: action.why, outcome }, 'deregistered from the bridge');
          facts.removed = [...facts.removed, action.name];
          if (action.event) await cluster.recordEvent(repo, action.event);
        } catch (error) {
          rosters.reposUnknown();
          facts.bridgeTrouble = trouble(error);
        }
        return 'continue';
      case 'finish': {
        const wrote = await cluster.writeStatus(REPO_RESOURCE, repo, repo.status as Record<string, unknown> | undefined, action.status as Record<string, unknown>);
        for (const event of action.events) await cluster.recordEvent(repo, event);
        if (wrote) {
          const ready = findCondition(action.status.conditions, 'Ready');
          log.info({ ready: ready?.status, reason: ready?.reason, repoName: action.status.repoName }, 'status updated');
        }
        return { requeueAfterMs: action.requeueAfterMs };
      }
    }
  }
}
