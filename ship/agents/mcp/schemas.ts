// zod shapes of the MCP tools' inputs and outputs (the SDK takes zod). The agent shapes mirror
// protocol/agent.ts (a test checks they accept and reject the same values); the repository shapes are the
// bridge's /repos answers of docs/architecture.md §8. structuredContent must be an object, so lists come wrapped in one.
import * as z from 'zod';
import { AGENT_LINK_MAX_LENGTH, AGENT_LINK_PATTERN, AGENT_STATES } from '../../../protocol/index.js';

export const agentState = z.enum(AGENT_STATES);
export const agentLink = z
  .string()
  .max(AGENT_LINK_MAX_LENGTH)
  .regex(new RegExp(AGENT_LINK_PATTERN), 'must be an http(s) URL')
  .describe('an http(s) URL this update is about: a pull request, an issue, a CI run');

export const agentStatusShape = {
  state: agentState,
  description: z.string(),
  model: z.string(),
  provider: z.string(),
  harness: z.string(),
  link: agentLink.optional(),
  stale: z
    .boolean()
    .optional()
    .describe('set by the ship: no pane output for its stale time while planning, building or verifying'),
  quietSince: z.string().optional().describe('with stale: the last pane output or report the ship knew of (ISO 8601)'),
};
export const agentStatus = z.object(agentStatusShape);

export const agentInitInput = {
  model: z.string().describe('the model you run as, e.g. claude-sonnet-4-5'),
  provider: z.string().describe('who serves the model, e.g. anthropic'),
  harness: z.string().describe('the agent program, e.g. claude-code, codex'),
};
export const agentStatusInput = {
  state: agentState.describe(
    'idle (done or waiting for work), planning, building, verifying, awaiting (needs a human)',
  ),
  description: z.string().describe('one line a human reads: what you are doing now, or what you need'),
  link: agentLink.optional(),
};
export const agentStatusGetOutput = { agent: agentStatus.nullable() };

const state = z.enum(['open', 'closed', 'all']).optional().describe('default open');
const issueNumber = z.number().int().positive();
const commentBody = z.string().min(1);
const nullableString = z.string().nullable();

export const repoInfo = {
  name: z.string(),
  fullName: z.string(),
  description: nullableString,
  url: z.string(),
  defaultBranch: z.string(),
  private: z.boolean(),
  stars: z.number(),
  openIssues: z.number(),
};

const issueSummary = {
  number: z.number(),
  title: z.string(),
  state: z.string(),
  author: nullableString,
  url: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
};
export const comment = {
  id: z.number(),
  author: nullableString,
  body: z.string(),
  url: z.string(),
  createdAt: z.string(),
};
const pullSummary = { ...issueSummary, draft: z.boolean(), baseBranch: z.string(), headBranch: z.string() };

export const issueList = z.array(z.object(issueSummary));
export const issueListOutput = { issues: issueList };
export const issueView = { ...issueSummary, body: nullableString, comments: z.array(z.object(comment)) };
export const pullList = z.array(z.object(pullSummary));
export const pullListOutput = { pulls: pullList };
export const pullView = {
  ...pullSummary,
  body: nullableString,
  merged: z.boolean(),
  mergeable: z.boolean().nullable(),
  additions: z.number(),
  deletions: z.number(),
  changedFiles: z.number(),
  headSha: z.string(),
};
export const review = {
  id: z.number(),
  state: z.string(),
  author: nullableString,
  body: nullableString,
  url: z.string(),
};
const check = {
  name: z.string(),
  status: z.string(),
  conclusion: nullableString,
  detailsUrl: nullableString,
  startedAt: nullableString,
  completedAt: nullableString,
};
export const checkList = z.array(z.object(check));
export const checksOutput = { checks: checkList };
export const failedJobList = z.array(
  z.object({ workflow: z.string(), job: z.string(), jobId: z.number(), log: z.string() }),
);
export const failedLogsOutput = { jobs: failedJobList };

export const stateInput = { state };
export const numberInput = { number: issueNumber };
export const commentInput = { number: issueNumber, body: commentBody };
export const reviewInput = {
  number: issueNumber,
  event: z.enum(['APPROVE', 'REQUEST_CHANGES', 'COMMENT']),
  body: z.string().optional(),
};
export const refOrPrInput = {
  ref: z.string().min(1).optional().describe('a branch, tag or commit SHA'),
  pr: issueNumber.optional().describe('a pull request number'),
};
