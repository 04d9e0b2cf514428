// The forge of the sweep benchmark (bench/sweep.ts), in its own process so that answering the sweep's calls
// never shares the load generator's event loop: exactly the two GitHub REST calls a sweep pass makes
// (`GET /repos/:owner/:repo/pulls?head=owner:branch&state=all`, `GET /repos/:owner/:repo/issues/:n`) over
// any number of repos, with every call counted by what it asked about: the pull-request list by
// (repo, branch), the issue read by (repo, issue). Anything else is a 404 and counted as `other`.
// Control, for the benchmark only: `PUT /_state` sets the repos' issues and pull requests, `GET /_calls`
// answers the counts, `DELETE /_calls` clears them. Prints its port on stdout once listening.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForgeIssue {
  number: number;
  title: string;
  state: 'open' | 'closed';
}
export interface ForgePull {
  number: number;
  /** The head branch (of the repo's own owner). */
  head: string;
  state: 'open' | 'closed';
}
export interface ForgeState {
  owner: string;
  repos: Record<string, { issues: ForgeIssue[]; pulls: ForgePull[] }>;
}
export interface ForgeCalls {
  /** `repo:branch` → pull-request lists asked for that branch. */
  pulls: Record<string, number>;
  /** `repo#number` → reads of that issue. */
  issues: Record<string, number>;
  other: number;
}

let state: ForgeState = { owner: 'acme', repos: {} };
let calls: ForgeCalls = { pulls: {}, issues: {}, other: 0 };

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

async function bodyOf(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
}

const html = (repo: string, path: string) => `https://github.example/${state.owner}/${repo}${path}`;

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://forge.invalid');
  if (url.pathname === '/_state' && request.method === 'PUT') {
    state = (await bodyOf(request)) as ForgeState;
    return send(response, 200, { ok: true });
  }
  if (url.pathname === '/_calls') {
    if (request.method === 'DELETE') calls = { pulls: {}, issues: {}, other: 0 };
    return send(response, 200, calls);
  }
  const match = /^\/repos\/([^/]+)\/([^/]+)\/(pulls|issues\/(\d+))$/.exec(url.pathname);
  const repo = match && match[1] === state.owner ? state.repos[match[2]!] : undefined;
  if (request.method !== 'GET' || !match || !repo) {
    calls.other++;
    return send(response, 404, { message: 'Not Found' });
  }
  const repoName = match[2]!;
  if (match[3] === 'pulls') {
    const head = url.searchParams.get('head') ?? '';
    const branch = head.slice(head.indexOf(':') + 1);
    calls.pulls[`${repoName}:${branch}`] = (calls.pulls[`${repoName}:${branch}`] ?? 0) + 1;
    const pulls = repo.pulls
      .filter((pull) => `${state.owner}:${pull.head}` === head)
      .sort((a, b) => b.number - a.number);
    return send(
      response,
      200,
      pulls.map((pull) => ({
        number: pull.number,
        state: pull.state,
        html_url: html(repoName, `/pull/${pull.number}`),
        head: { ref: pull.head },
        base: { ref: 'main' },
      })),
    );
  }
  const number = Number(match[4]);
  calls.issues[`${repoName}#${number}`] = (calls.issues[`${repoName}#${number}`] ?? 0) + 1;
  const issue = repo.issues.find((candidate) => candidate.number === number);
  if (!issue) return send(response, 404, { message: 'Not Found' });
  return send(response, 200, {
    number: issue.number,
    title: issue.title,
    state: issue.state,
    html_url: html(repoName, `/issues/${number}`),
  });
}

const server = createServer((request, response) => {
  handle(request, response).catch((error: Error) => send(response, 500, { message: error.message }));
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
