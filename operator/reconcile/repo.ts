// The Repo reconciler: the executor around decideRepo (repo-decide.ts), in the same loop as the Ship's
// (executor.ts) — read the Repo from the cache, perform the one action decided, fold the outcome in, decide
// again. Its own action is the registration; the rest are the shared steps.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Repo } from '../../protocol/index.js';
import { isRefusal } from '../../server/request-failed.js';
import type { RepoResource } from '../resources/index.js';
import type { ObjectKey, ReconcileResult, Reconciler } from '../runtime/controller.js';
import { claimsAgainst } from './claims.js';
import { kubeTime } from './conditions.js';
import type { ReconcileDeps } from './context.js';
import { settle, SharedSteps, troubleOf, type Step } from './executor.js';
import { REPO_RESOURCE } from './names.js';
import { decideRepo, type RepoAction, type RepoFacts } from './repo-decide.js';

type RepoObject = RepoResource & KubernetesObject;

export class RepoReconciler implements Reconciler {
  readonly kind = 'Repo';
  readonly resource = REPO_RESOURCE;
  private readonly steps: SharedSteps<RepoObject, Repo>;

  constructor(private readonly deps: ReconcileDeps) {
    this.steps = new SharedSteps(
      deps.cluster,
      REPO_RESOURCE,
      deps.rosters.repos,
      (name) => deps.bridge.deregisterRepo(name),
      (status) => ({ repoName: status.repoName }),
    );
  }

  async reconcile(key: ObjectKey, signal?: AbortSignal): Promise<ReconcileResult | undefined> {
    const { cache, options } = this.deps;
    const repo = cache.get<RepoObject>(REPO_RESOURCE, key);
    if (!repo) return;
    const log = this.deps.log.child({ repo: `${key.namespace}/${key.name}` });
    const facts: RepoFacts = {
      repo,
      now: kubeTime(this.deps.clock()),
      claims: claimsAgainst(repo, cache.list<RepoObject>(REPO_RESOURCE), (other) => other.status?.repoName),
      posts: 0,
      removed: [],
      refreshMs: options.refreshMs,
      bridgeRetryMs: options.bridgeRetryMs,
    };
    const settled = await settle(
      `Repo ${key.namespace}/${key.name}`,
      signal,
      log,
      () => decideRepo(facts),
      (action) => this.perform(facts, action, log),
    );
    return settled?.result;
  }

  private async perform(facts: RepoFacts, action: RepoAction, log: ReconcileDeps['log']): Promise<Step> {
    const { bridge, rosters } = this.deps;
    if (this.steps.handles(action)) {
      const { step, object } = await this.steps.perform(facts.repo as RepoObject, facts, action, log);
      if (object) facts.repo = object;
      return step;
    }
    // register
    facts.posts += 1;
    try {
      facts.posted = { kind: 'created', repo: await bridge.registerRepo(action.request) };
      rosters.repos.put(facts.posted.repo);
      log.info({ repoName: action.request.name }, 'registered with the bridge');
    } catch (error) {
      if (!isRefusal(error)) {
        rosters.repos.forget();
        facts.bridgeTrouble = troubleOf(error);
      } else if (error.status === 409) {
        // Registered by someone else since our read: look again (adopt if equal, replace if not).
        facts.posted = { kind: 'taken' };
        try {
          facts.roster = await rosters.repos.get({ fresh: true });
        } catch (listError) {
          facts.bridgeTrouble = troubleOf(listError);
        }
      } else {
        facts.posted = { kind: 'refused', status: error.status, message: error.detail };
      }
    }
    return 'continue';
  }
}
