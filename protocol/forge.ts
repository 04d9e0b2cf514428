// The forge answers of docs/architecture.md §8 (GET /repos/:name/info, …/issues, …/pulls, …/checks and the
// comments and reviews posted): one TypeBox schema per shape, which the bridge's forge routes declare as their
// answers (bridge/routes/forge.ts), the providers answer (bridge/providers) and the GUI reads (an issue as
// GET /repos/:name/issues lists it).
import { Type, type Static } from 'typebox';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const RepoInfo = Type.Object({
  name: Type.String(),
  fullName: Type.String(),
  description: NullableString,
  url: Type.String(),
  defaultBranch: Type.String(),
  private: Type.Boolean(),
  stars: Type.Integer(),
  openIssues: Type.Integer(),
});
export type RepoInfo = Static<typeof RepoInfo>;

export const IssueSummary = Type.Object({
  number: Type.Integer(),
  title: Type.String(),
  state: Type.String(),
  author: NullableString,
  url: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type IssueSummary = Static<typeof IssueSummary>;

export const ForgeComment = Type.Object({
  id: Type.Integer(),
  author: NullableString,
  body: Type.String(),
  url: Type.String(),
  createdAt: Type.String(),
});
export type ForgeComment = Static<typeof ForgeComment>;

/** An issue with its comments. */
export const IssueView = Type.Object({
  ...IssueSummary.properties,
  body: NullableString,
  comments: Type.Array(ForgeComment),
});
export type IssueView = Static<typeof IssueView>;

export const PullSummary = Type.Object({
  ...IssueSummary.properties,
  draft: Type.Boolean(),
  baseBranch: Type.String(),
  headBranch: Type.String(),
});
export type PullSummary = Static<typeof PullSummary>;

export const PullView = Type.Object({
  ...PullSummary.properties,
  body: NullableString,
  merged: Type.Boolean(),
  mergeable: Type.Union([Type.Boolean(), Type.Null()]),
  additions: Type.Integer(),
  deletions: Type.Integer(),
  changedFiles: Type.Integer(),
  headSha: Type.String(),
});
export type PullView = Static<typeof PullView>;

export const ForgeReview = Type.Object({
  id: Type.Integer(),
  state: Type.String(),
  author: NullableString,
  body: NullableString,
  url: Type.String(),
});
export type ForgeReview = Static<typeof ForgeReview>;

/** One check of a ref or a pull request. */
export const CheckRun = Type.Object({
  name: Type.String(),
  status: Type.String(),
  conclusion: NullableString,
  detailsUrl: NullableString,
  startedAt: NullableString,
  completedAt: NullableString,
});
export type CheckRun = Static<typeof CheckRun>;

/** The log of one failed job of a ref or a pull request. */
export const FailedJobLog = Type.Object({
  workflow: Type.String(),
  job: Type.String(),
  jobId: Type.Integer(),
  log: Type.String(),
});
export type FailedJobLog = Static<typeof FailedJobLog>;
