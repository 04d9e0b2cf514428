// The forge behind a repo (docs/architecture.md §8): one interface the /repos/:name/… forge routes call, answering
// the shapes of docs/architecture.md §8 (protocol/forge.ts), and ProviderError, the one error a provider throws
// (status and a message that is safe to show: no token, URL credentials redacted). The routes map it to a
// BridgeError once. Which provider serves a repo is the routes' choice (by `repo.provider`); this module knows
// no forge.
import type {
  CheckRun,
  FailedJobLog,
  ForgeComment,
  ForgeReview,
  IssueSummary,
  IssueView,
  PullSummary,
  PullView,
  Repo,
  RepoInfo,
} from '../../protocol/index.js';
import { BridgeError } from '../errors.js';

export class ProviderError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** A provider's failure as the bridge answers it: a forge 5xx (or no answer) is 502, other statuses pass through. */
export function bridgeErrorOf(error: unknown): unknown {
  if (!(error instanceof ProviderError)) return error;
  return new BridgeError(error.status >= 500 || error.status < 400 ? 502 : error.status, error.message);
}

export type IssueState = 'open' | 'closed' | 'all';
export type ReviewEvent = 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT';
/** Exactly one of them (the routes check). */
export type CheckTarget = { ref: string; pr?: undefined } | { pr: number; ref?: undefined };

/** What issue-linked create needs of an issue (docs/architecture.md §9). */
export interface IssueBrief {
  number: number;
  title: string;
  state: string;
}
/** A pull request as the sweeper records it (the spec's EphemeralWorkspace.pullRequest). */
export interface PullRef {
  number: number;
  state: string;
  url: string;
}

export interface ForgeProvider {
  repoInfo(repo: Repo): Promise<RepoInfo>;
  listIssues(repo: Repo, state: IssueState): Promise<IssueSummary[]>;
  viewIssue(repo: Repo, number: number): Promise<IssueView>;
  commentIssue(repo: Repo, number: number, body: string): Promise<ForgeComment>;
  listPulls(repo: Repo, state: IssueState): Promise<PullSummary[]>;
  viewPull(repo: Repo, number: number): Promise<PullView>;
  commentPull(repo: Repo, number: number, body: string): Promise<ForgeComment>;
  reviewPull(repo: Repo, number: number, event: ReviewEvent, body?: string): Promise<ForgeReview>;
  checks(repo: Repo, target: CheckTarget): Promise<CheckRun[]>;
  failedJobLogs(repo: Repo, target: CheckTarget): Promise<FailedJobLog[]>;

  // Issue-linked and ephemeral workspaces (spec "POST /workspaces (bridge)", docs/architecture.md §9).
  /** The issue's number, title and state; a pull request's number is 404 (it is not an issue). */
  readIssue(repo: Repo, number: number): Promise<IssueBrief>;
  /**
   * Creates `branch` from the default branch's head and links it to the issue as a development branch.
   * Answers the name the forge created, or null when the forge refused to create it (the name is taken, or
   * already linked): the caller then looks for it. Any other failure throws.
   */
  createLinkedBranch(repo: Repo, issueNumber: number, branch: string): Promise<string | null>;
  /** The names of the branches linked to the issue (all of them, paginated). */
  linkedBranches(repo: Repo, issueNumber: number): Promise<string[]>;
  /** Whether `refs/heads/<branch>` exists. */
  branchExists(repo: Repo, branch: string): Promise<boolean>;
  /** Every pull request (any state) whose head is `branch` of this repo, in one paginated list call. */
  pullsForBranch(repo: Repo, branch: string): Promise<PullRef[]>;
}

/** Providers by the `provider` name a repo is registered with. */
export type ForgeProviders = Readonly<Record<string, ForgeProvider>>;

/** The provider serving repos registered with `provider`, or undefined (an own key only: no `toString`). */
export function providerFor(providers: ForgeProviders, provider: string): ForgeProvider | undefined {
  return Object.hasOwn(providers, provider) ? providers[provider] : undefined;
}
