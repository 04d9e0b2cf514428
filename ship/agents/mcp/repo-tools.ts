// The repository tools: each calls one of the bridge's /repos/:name/… routes (docs/architecture.md §8) as ship-agent, with
// the {bridgeUrl, token} the bridge pushed to POST /agent/credentials, for this workspace's repo. Every
// failure is a thrown Error whose message the agent reads as a tool error; the token never appears in one.
import * as z from 'zod';
import { redactUrlCredentials, messageOf } from '../../../protocol/index.js';
import {
  checkList,
  checksOutput,
  comment,
  commentInput,
  failedJobList,
  failedLogsOutput,
  issueList,
  issueListOutput,
  issueView,
  numberInput,
  pullList,
  pullListOutput,
  pullView,
  refOrPrInput,
  repoInfo,
  review,
  reviewInput,
  stateInput,
} from './schemas.js';
import { defineTool, type AnyTool, type ToolContext } from './tool.js';

export const NO_CREDENTIALS =
  'no bridge has connected to this ship yet, so repository tools have no credentials (POST /agent/credentials); agent status tools still work';

interface BridgeCall<T> {
  /** The answer's docs/architecture.md §8 shape: anything else is a tool error naming the route. */
  shape: z.ZodType<T>;
  method: 'GET' | 'POST';
  /** Below /repos/:name, e.g. `/issues/3`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

/** Calls the bridge's route for this workspace's repo; the parsed JSON answer, or an Error with a message an agent can act on. */
export async function callBridge<T>(context: ToolContext, call: BridgeCall<T>): Promise<T> {
  const credentials = context.credentials.get();
  if (!credentials) throw new Error(NO_CREDENTIALS);
  const route = `${call.method} /repos/:name${call.path}`;
  let url: URL;
  try {
    url = new URL(
      `repos/${encodeURIComponent(context.repo)}${call.path}`,
      credentials.bridgeUrl.endsWith('/') ? credentials.bridgeUrl : `${credentials.bridgeUrl}/`,
    );
  } catch {
    throw new Error(`the bridge URL pushed to this ship is not a URL: ${redactUrlCredentials(credentials.bridgeUrl)}`);
  }
  for (const [key, value] of Object.entries(call.query ?? {}))
    if (value !== undefined) url.searchParams.set(key, String(value));
  const where = redactUrlCredentials(url.origin);
  let response: Response;
  try {
    response = await fetch(url, {
      method: call.method,
      headers: {
        authorization: `Bearer ${credentials.token}`,
        accept: 'application/json',
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      redirect: 'error',
      signal: AbortSignal.timeout(context.bridgeTimeoutMs),
    });
  } catch (error) {
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${context.bridgeTimeoutMs} ms`
        : (((error as Error).cause as Error | undefined)?.message ?? messageOf(error));
    throw new Error(`could not reach the bridge at ${where} for ${route}: ${reason}`);
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (response.ok) {
    const parsed = call.shape.safeParse(body);
    if (!parsed.success)
      throw new Error(
        `the bridge at ${where} answered ${route} with an unexpected shape: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`,
      );
    return parsed.data;
  }
  const message =
    typeof (body as { error?: unknown } | null)?.error === 'string' ? (body as { error: string }).error : null;
  // The bridge's guard refuses a credential with exactly this; a forge's own 401 (its token) passes through with its message.
  if (response.status === 401 && (message === null || message === 'authentication required')) {
    throw new Error(
      `the bridge at ${where} refused this ship's agent credential (401): it was rotated or revoked; it comes back when the bridge reconnects and pushes a new one`,
    );
  }
  // The bridge's own "no such route" (or any 404 that is not a forge's {error}) means it predates the /repos routes.
  if (response.status === 404 && (message === null || message.startsWith('route not found'))) {
    throw new Error(
      `the bridge at ${where} does not serve ${route} yet (it answered 404): repository tools need a bridge with forge support`,
    );
  }
  throw new Error(message ?? `the bridge at ${where} answered ${response.status} to ${route}`);
}

const onlyOne = (args: { ref?: string; pr?: number }) => {
  if (args.ref !== undefined && args.pr !== undefined) throw new Error('give a ref or a pr, not both');
  if (args.ref === undefined && args.pr === undefined) throw new Error('checks require a ref or pr');
  return { ref: args.ref, pr: args.pr };
};
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
const forge = { openWorldHint: true } as const;
const reading = { ...forge, readOnlyHint: true } as const;
const writing = { ...forge, readOnlyHint: false, destructiveHint: false, idempotentHint: false } as const;

export const repoTools: AnyTool[] = [
  defineTool({
    name: 'repo_info',
    description: "Call to learn this workspace's repository on its forge: full name, URL, default branch, visibility.",
    input: {},
    output: repoInfo,
    annotations: { title: 'Repository info', ...reading },
    async run(_args, context) {
      const info = await callBridge(context, { shape: z.object(repoInfo), method: 'GET', path: '/info' });
      return { result: info, summary: `${info.fullName} (default branch ${info.defaultBranch}): ${info.url}` };
    },
  }),
  defineTool({
    name: 'repo_issue_list',
    description:
      "Call to list this repository's issues (open unless you ask for closed or all); pull requests are not included.",
    input: stateInput,
    output: issueListOutput,
    annotations: { title: 'List issues', ...reading },
    async run(args, context) {
      const issues = await callBridge(context, {
        shape: issueList,
        method: 'GET',
        path: '/issues',
        query: { state: args.state },
      });
      return { result: { issues }, summary: `${plural(issues.length, `${args.state ?? 'open'} issue`)}` };
    },
  }),
  defineTool({
    name: 'repo_issue_view',
    description: 'Call to read one issue with its body and comments before working on it.',
    input: numberInput,
    output: issueView,
    annotations: { title: 'View issue', ...reading },
    async run(args, context) {
      const issue = await callBridge(context, {
        shape: z.object(issueView),
        method: 'GET',
        path: `/issues/${args.number}`,
      });
      return {
        result: issue,
        summary: `#${issue.number} ${issue.title} (${plural(issue.comments.length, 'comment')})`,
      };
    },
  }),
  defineTool({
    name: 'repo_issue_comment',
    description: 'Call to post a comment on an issue, e.g. to report progress or ask a question there.',
    input: commentInput,
    output: comment,
    annotations: { title: 'Comment on issue', ...writing },
    async run(args, context) {
      const posted = await callBridge(context, {
        shape: z.object(comment),
        method: 'POST',
        path: `/issues/${args.number}/comments`,
        body: { body: args.body },
      });
      return { result: posted, summary: `Commented on issue #${args.number}: ${posted.url}` };
    },
  }),
  defineTool({
    name: 'repo_pr_list',
    description: "Call to list this repository's pull requests (open unless you ask for closed or all).",
    input: stateInput,
    output: pullListOutput,
    annotations: { title: 'List pull requests', ...reading },
    async run(args, context) {
      const pulls = await callBridge(context, {
        shape: pullList,
        method: 'GET',
        path: '/pulls',
        query: { state: args.state },
      });
      return { result: { pulls }, summary: `${plural(pulls.length, `${args.state ?? 'open'} pull request`)}` };
    },
  }),
  defineTool({
    name: 'repo_pr_view',
    description: 'Call to read one pull request: body, branches, mergeability, size and head commit.',
    input: numberInput,
    output: pullView,
    annotations: { title: 'View pull request', ...reading },
    async run(args, context) {
      const pull = await callBridge(context, {
        shape: z.object(pullView),
        method: 'GET',
        path: `/pulls/${args.number}`,
      });
      return { result: pull, summary: `PR #${pull.number} ${pull.title} (${pull.headBranch} -> ${pull.baseBranch})` };
    },
  }),
  defineTool({
    name: 'repo_pr_comment',
    description: 'Call to post a comment on a pull request.',
    input: commentInput,
    output: comment,
    annotations: { title: 'Comment on pull request', ...writing },
    async run(args, context) {
      const posted = await callBridge(context, {
        shape: z.object(comment),
        method: 'POST',
        path: `/pulls/${args.number}/comments`,
        body: { body: args.body },
      });
      return { result: posted, summary: `Commented on PR #${args.number}: ${posted.url}` };
    },
  }),
  defineTool({
    name: 'repo_pr_review',
    description:
      'Call to submit a review on a pull request: APPROVE, REQUEST_CHANGES or COMMENT, with an optional body.',
    input: reviewInput,
    output: review,
    annotations: { title: 'Review pull request', ...writing },
    async run(args, context) {
      const body = args.body === undefined ? { event: args.event } : { event: args.event, body: args.body };
      const posted = await callBridge(context, {
        shape: z.object(review),
        method: 'POST',
        path: `/pulls/${args.number}/reviews`,
        body,
      });
      return { result: posted, summary: `Reviewed PR #${args.number} (${posted.state}): ${posted.url}` };
    },
  }),
  defineTool({
    name: 'repo_checks',
    description: 'Call after pushing to see the CI checks of a ref or a pull request (give exactly one).',
    input: refOrPrInput,
    output: checksOutput,
    annotations: { title: 'CI checks', ...reading },
    async run(args, context) {
      const checks = await callBridge(context, {
        shape: checkList,
        method: 'GET',
        path: '/checks',
        query: onlyOne(args),
      });
      const failed = checks.filter((c) => c.conclusion === 'failure' || c.conclusion === 'timed_out').length;
      const pending = checks.filter((c) => c.status !== 'completed').length;
      return {
        result: { checks },
        summary: `${plural(checks.length, 'check')}: ${failed} failed, ${pending} not completed`,
      };
    },
  }),
  defineTool({
    name: 'repo_failed_logs',
    description:
      'Call when checks failed to read the logs of the failed CI jobs of a ref or a pull request (give exactly one).',
    input: refOrPrInput,
    output: failedLogsOutput,
    annotations: { title: 'Failed CI logs', ...reading },
    async run(args, context) {
      const jobs = await callBridge(context, {
        shape: failedJobList,
        method: 'GET',
        path: '/checks/logs',
        query: onlyOne(args),
      });
      return {
        result: { jobs },
        summary: jobs.length
          ? `${plural(jobs.length, 'failed job')}: ${jobs.map((j) => j.job).join(', ')}`
          : 'No failed jobs',
      };
    },
  }),
];
