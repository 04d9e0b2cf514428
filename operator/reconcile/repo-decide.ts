// What to do next for one Repo, as a pure function of what has been observed so far (the same loop as
// ship-decide.ts). A repo's bridge name is known up front (spec.name, else metadata.name), so the rules are
// simpler than a ship's: held by another Repo → NameConflict; registered with the same url and provider →
// adopted; registered differently → replaced (DELETE + POST, with an Event); absent → POST. Deletion
// deregisters per spec.deletionPolicy. A Repo is Ready exactly when it is registered as its spec says.
import { DEFAULT_REPO_PROVIDER, redactUrlCredentials, type Repo } from '../../protocol/index.js';
import { FINALIZER, repoBridgeName, type RepoResource, type RepoResourceStatus } from '../resources/index.js';
import { describeClaim } from './claims.js';
import { REASONS, type ConditionInput, type Reason } from './conditions.js';
import {
  bridgeTroubleReady,
  notRegisteredConditions,
  readyEvents,
  statusAfter,
  type BridgeTrouble,
  type EventSpec,
  type RegistrationFacts,
} from './outcomes.js';

export type RepoRegisterOutcome =
  | { kind: 'created'; repo: Repo }
  /** 409 `repo already registered`: someone registered it between our GET and POST. */
  | { kind: 'taken' }
  | { kind: 'refused'; status: number; message: string };

export interface RepoFacts extends RegistrationFacts<Repo, RepoRegisterOutcome> {
  repo: RepoResource;
}

export type RepoAction =
  | { kind: 'addFinalizer' }
  | { kind: 'removeFinalizer'; event?: EventSpec }
  | { kind: 'readRoster' }
  | { kind: 'register'; request: { name: string; url: string; provider: string } }
  | { kind: 'deregister'; name: string; why: 'delete' | 'replace'; event?: EventSpec }
  | { kind: 'finish'; status: RepoResourceStatus; events: EventSpec[]; requeueAfterMs?: number }
  | { kind: 'done' };

type Held = Repo | null | 'unchanged';

function repoStatus(
  facts: RepoFacts,
  held: Held,
  registered: ConditionInput | 'unchanged',
  ready: ConditionInput,
): RepoResourceStatus {
  const previous = facts.repo.status ?? {};
  const status: RepoResourceStatus = statusAfter(facts.repo, registered, ready, facts.now);
  const source =
    held === 'unchanged' ? { name: previous.repoName, url: previous.registeredURL, provider: previous.provider } : held;
  if (source?.name !== undefined) status.repoName = source.name;
  // Status, conditions and Events are readable by everyone who can read the Repo: a URL's credentials never go there.
  if (source?.url !== undefined) status.registeredURL = redactUrlCredentials(source.url);
  if (source?.provider !== undefined) status.provider = source.provider;
  return status;
}

function notRegistered(facts: RepoFacts, reason: Reason, text: string, held: Held): RepoAction {
  const { registered, ready } = notRegisteredConditions(reason, text);
  return {
    kind: 'finish',
    status: repoStatus(facts, held, registered, ready),
    events: readyEvents(facts.repo, ready),
    requeueAfterMs: facts.refreshMs,
  };
}

function registeredAs(facts: RepoFacts, repo: Repo, events: EventSpec[] = []): RepoAction {
  const text = `registered with the bridge as ${repo.name} (${repo.provider}) at ${redactUrlCredentials(repo.url)}`;
  const registered: ConditionInput = { type: 'Registered', status: 'True', reason: REASONS.Registered, message: text };
  const ready: ConditionInput = { type: 'Ready', status: 'True', reason: REASONS.Registered, message: text };
  return {
    kind: 'finish',
    status: repoStatus(facts, repo, registered, ready),
    events: readyEvents(facts.repo, ready, events),
    requeueAfterMs: facts.refreshMs,
  };
}

function bridgeTrouble(facts: RepoFacts, trouble: BridgeTrouble, deleting: boolean): RepoAction {
  const ready = bridgeTroubleReady(trouble, deleting ? 'repo' : undefined);
  return {
    kind: 'finish',
    status: repoStatus(facts, 'unchanged', 'unchanged', ready),
    events: readyEvents(facts.repo, ready),
    requeueAfterMs: facts.bridgeRetryMs,
  };
}

/** What the spec asks the bridge to hold. */
function desiredRepo(repo: RepoResource): Repo {
  return { name: repoBridgeName(repo), url: repo.spec.url, provider: repo.spec.provider ?? DEFAULT_REPO_PROVIDER };
}

function equalRepo(a: Repo, b: Repo): boolean {
  return a.name === b.name && a.url === b.url && a.provider === b.provider;
}

export function decideRepo(facts: RepoFacts): RepoAction {
  const { repo } = facts;
  if (repo.metadata.deletionTimestamp) return decideRepoDeletion(facts);
  if (!(repo.metadata.finalizers ?? []).includes(FINALIZER)) return { kind: 'addFinalizer' };
  if (facts.bridgeTrouble) return bridgeTrouble(facts, facts.bridgeTrouble, false);
  if (!facts.roster) return { kind: 'readRoster' };
  const desired = desiredRepo(repo);
  const removed = new Set(facts.removed);
  const existing = removed.has(desired.name) ? undefined : facts.roster.find((entry) => entry.name === desired.name);
  const own = repo.status?.repoName === desired.name;
  const claim = facts.claims.get(desired.name);
  if (claim && (!own || claim.senior)) {
    return notRegistered(
      facts,
      REASONS.NameConflict,
      `repo name ${desired.name} is held by ${describeClaim('Repo', claim)}; this Repo does not take it over`,
      null,
    );
  }
  const posted = facts.posted;
  if (posted?.kind === 'created')
    return registeredAs(facts, posted.repo, [
      {
        type: 'Normal',
        reason: 'Registered',
        message: `registered repo ${posted.repo.name} at ${redactUrlCredentials(posted.repo.url)}`,
      },
    ]);
  if (posted?.kind === 'refused')
    return notRegistered(
      facts,
      REASONS.RegistrationRefused,
      `the bridge refused the registration (${posted.status}): ${posted.message}`,
      null,
    );
  if (existing && equalRepo(existing, desired)) {
    return registeredAs(
      facts,
      existing,
      own
        ? []
        : [
            {
              type: 'Normal',
              reason: 'Adopted',
              message: `adopted the existing registration of repo ${existing.name} at ${redactUrlCredentials(existing.url)}`,
            },
          ],
    );
  }
  if (existing) {
    return {
      kind: 'deregister',
      name: desired.name,
      why: 'replace',
      event: {
        type: 'Normal',
        reason: 'Replaced',
        message: `repo ${desired.name} was registered with url ${redactUrlCredentials(existing.url)} and provider ${existing.provider}; deregistered it to register url ${redactUrlCredentials(desired.url)} and provider ${desired.provider}`,
      },
    };
  }
  if (facts.posts < 2) return { kind: 'register', request: desired };
  return notRegistered(
    facts,
    REASONS.RegistrationRefused,
    `the bridge keeps answering "repo already registered: ${desired.name}" while not listing it`,
    null,
  );
}

function decideRepoDeletion(facts: RepoFacts): RepoAction {
  const { repo } = facts;
  if (!(repo.metadata.finalizers ?? []).includes(FINALIZER)) return { kind: 'done' };
  if ((repo.spec.deletionPolicy ?? 'Deregister') === 'Orphan') return { kind: 'removeFinalizer' };
  if (facts.bridgeTrouble) return bridgeTrouble(facts, facts.bridgeTrouble, true);
  const name = repoBridgeName(repo);
  const event: EventSpec = {
    type: 'Normal',
    reason: 'Deregistered',
    message: `deregistered repo ${name} from the bridge`,
  };
  if (facts.removed.includes(name)) return { kind: 'removeFinalizer', event };
  const claim = facts.claims.get(name);
  if (repo.status?.repoName === name) {
    if (claim?.senior) return { kind: 'removeFinalizer' };
    return { kind: 'deregister', name, why: 'delete' };
  }
  // Never recorded as held: deregister only a registration equal to the spec that no other Repo holds.
  if (claim) return { kind: 'removeFinalizer' };
  if (!facts.roster) return { kind: 'readRoster' };
  const existing = facts.roster.find((entry) => entry.name === name);
  if (existing && equalRepo(existing, desiredRepo(repo))) return { kind: 'deregister', name, why: 'delete' };
  return { kind: 'removeFinalizer' };
}
