// POST /workspaces on the bridge (spec "POST /workspaces (bridge)"): validation, the branch (given, or
// resolved from an issue through the repo's forge), the key's reservation, the ship's clone, and for
// `ephemeral: true` the record: an intent row before the ship is called, watching once it confirmed, gone
// when it refused (docs/security.md H23). The answer is the ship's summary with `ship` and `ephemeral`.
import {
  identifierProblem,
  workspaceKey,
  WorkspaceSummary,
  type BranchOutcome,
  type BridgeCreateWorkspaceRequest,
  type BridgeWorkspaceSummary,
  type Repo,
} from '../../protocol/index.js';
import { Compile } from 'typebox/compile';
import { BridgeError, invalidShipIdentifier } from '../errors.js';
import type { EphemeralRecords } from '../ephemeral/ephemeral-records.js';
import { resolveIssueBranch } from '../ephemeral/issue-branch.js';
import { bridgeErrorOf, providerFor, type ForgeProvider, type ForgeProviders } from '../providers/forge-provider.js';
import type { ShipRegistry } from '../ships/registry.js';
import { parseJson, ShipUnreachable, type ShipReply } from '../ships/ship-client.js';
import { branchOutcome, shipError } from '../ships/ship-replies.js';
import type { ReposStore } from '../store/repos-store.js';

const checkSummary = Compile(WorkspaceSummary);
const CREATE_TIMEOUT_MS = 10 * 60_000;

export interface CreateWorkspaceDeps {
  registry: ShipRegistry;
  repos: ReposStore;
  providers: ForgeProviders;
  ephemeral: EphemeralRecords;
}

export type CreatedWorkspace = BridgeWorkspaceSummary & Partial<BranchOutcome>;

const removedMidRequest = (ship: string, key: string) =>
  new BridgeError(409, `ship "${ship}" was removed while creating ${key}`);

/** The request's rules that need no lookup; answers which form it is. */
function validate(body: BridgeCreateWorkspaceRequest): { issueNumber: number } | { branch: string } {
  const shipProblem = identifierProblem(body.ship);
  if (shipProblem) throw invalidShipIdentifier(shipProblem);
  if (body.issueNumber !== undefined && body.branch !== undefined)
    throw new BridgeError(400, 'give either a branch or an issueNumber, not both');
  if (body.ephemeral !== undefined && body.issueNumber === undefined)
    throw new BridgeError(400, 'ephemeral is only accepted together with issueNumber');
  if (body.issueNumber !== undefined) {
    if (!Number.isInteger(body.issueNumber) || body.issueNumber < 1)
      throw new BridgeError(400, 'issueNumber must be a positive integer');
    return { issueNumber: body.issueNumber };
  }
  if (body.branch === undefined) throw new BridgeError(400, 'give either a branch or an issueNumber');
  if (body.branch.trim() === '') throw new BridgeError(400, 'branch must not be empty');
  return { branch: body.branch };
}

/** The forge that serves issue-linked creates for `repo`, or the reason there is none. */
function forgeOf(repo: Repo, providers: ForgeProviders): ForgeProvider {
  if (repo.provider === 'custom') {
    throw new BridgeError(
      400,
      `creating a workspace from an issue needs a repo with provider "github"; repo "${repo.name}" has provider "custom"`,
    );
  }
  const provider = providerFor(providers, repo.provider);
  if (!provider) throw new BridgeError(501, `provider "${repo.provider}" is not supported yet`);
  return provider;
}

export async function createWorkspace(
  deps: CreateWorkspaceDeps,
  body: BridgeCreateWorkspaceRequest,
): Promise<CreatedWorkspace> {
  const { registry, ephemeral } = deps;
  const form = validate(body);
  const repo = await deps.repos.get(body.repoName);
  if (!repo) throw new BridgeError(400, `unknown repo: ${body.repoName}`);
  const provider = 'issueNumber' in form ? forgeOf(repo, deps.providers) : null;
  const ship = registry.target(body.ship);
  const key = workspaceKey(body.repoName, body.name);
  // Held from before the forge is asked: a second create of the key never makes a second branch.
  registry.reserve(key, ship.name);
  let branch: string;
  let recorded = false;
  let answer: ShipReply;
  try {
    if ('issueNumber' in form) {
      try {
        branch = (await resolveIssueBranch(provider!, repo, form.issueNumber)).branch;
      } catch (error) {
        throw bridgeErrorOf(error);
      }
      if (body.ephemeral === true) {
        await ephemeral.begin({
          repoName: body.repoName,
          name: body.name,
          ship: ship.name,
          issueNumber: form.issueNumber,
          branch,
        });
        recorded = true;
      }
    } else {
      branch = form.branch;
    }
    if (!registry.isRegistered(ship.name)) throw removedMidRequest(ship.name, key);
    answer = await ship.client.call({
      method: 'POST',
      path: '/workspaces',
      body: { url: repo.url, repoName: body.repoName, name: body.name, branch },
      timeoutMs: CREATE_TIMEOUT_MS,
    });
  } catch (error) {
    if (error instanceof ShipUnreachable && registry.isRegistered(ship.name)) {
      // No answer: the key and the intent row wait for the ship's next sync to tell what happened.
      registry.holdUndecided(key);
      if (recorded) ephemeral.settle(body.repoName, body.name);
      throw registry.unreachable(ship, error.message);
    }
    registry.release(key);
    if (recorded) await ephemeral.abandon(body.repoName, body.name);
    if (!registry.isRegistered(ship.name)) throw removedMidRequest(ship.name, key);
    throw error;
  }
  registry.release(key);
  if (!registry.isRegistered(ship.name) || answer.status !== 201) {
    if (recorded) await ephemeral.abandon(body.repoName, body.name);
    throw registry.isRegistered(ship.name) ? shipError(answer) : removedMidRequest(ship.name, key);
  }
  const created = parseJson(answer);
  if (!checkSummary.Check(created) || created.repoName !== body.repoName || created.name !== body.name) {
    // The ship said 201 but not what: its next sync decides the intent row.
    if (recorded) ephemeral.settle(body.repoName, body.name);
    throw new BridgeError(502, `ship "${ship.name}" returned an invalid workspace summary`);
  }
  // `branchCreated` belongs to this answer only: the index (listings, events) keeps the spec's summary.
  const { branchCreated: _answerOnly, ...summary } = created as WorkspaceSummary & { branchCreated?: unknown };
  // A record of this key that is not this create's belongs to an earlier workspace, deleted on its ship and
  // not yet forgotten by a sweep (the key was free, or the ship would have refused the clone). Left in place
  // it would decorate the new ordinary workspace and have the next sweep destroy it for the old issue.
  const stale = !recorded && ephemeral.get(body.repoName, body.name) !== null;
  if (stale) await ephemeral.drop(body.repoName, body.name);
  // Own the key now: the ship's `workspace.created` event may arrive after this answer, and the caller's
  // next call must already route (the event then only republishes).
  registry.index.apply(ship.name, {
    type: 'workspace.created',
    ship: ship.name,
    at: new Date().toISOString(),
    workspace: summary,
  });
  // The ship's event may have gone out with the stale record: the aggregate says it without.
  if (stale) registry.publishSync();
  if (recorded) {
    await ephemeral.confirm(body.repoName, body.name);
    // The ship's `workspace.created` may have gone out before the record watched: the aggregate says it now.
    registry.publishSync();
  }
  return { ...registry.decorate(ship.name, summary), ...branchOutcome(created) };
}
