// The fake GitHub's GraphQL endpoint (POST /graphql): exactly the three operations the GitHub provider sends
// for issue-linked branches, answered over the FakeGitHub's state with GitHub's shapes, errors included
// (HTTP 200 with `errors: [{type, message, path, locations}]` next to the partial `data`). It parses a
// query loosely (which operation, which connection arguments) but checks the variables and the fields the
// provider relies on, so a provider that drifts from what GitHub accepts fails here rather than in production.
// It does not implement GraphQL: an operation it does not recognise is an untyped error naming it.
import type { FakeGitHub, FakeIssue } from './github.js';

export interface FakeGraphqlError {
  type?: string;
  message: string;
  path?: (string | number)[];
}
/** An answer for the next GraphQL operation of this kind (each used once). */
export interface GraphqlInjected {
  type?: string;
  message: string;
  operation?: 'query' | 'mutation';
  headers?: Record<string, string>;
}
export interface GraphqlAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** IssueAndHead, LinkedBranches or CreateLinkedBranch (recorded on the request for counting). */
  operation: string;
}

/** GitHub's largest `first`/`last` on a connection. */
const MAX_PAGE = 100;

const failed = (operation: string, data: unknown, ...errors: FakeGraphqlError[]): GraphqlAnswer => ({
  status: 200,
  operation,
  body: { data, errors: errors.map((e) => ({ ...e, locations: [{ line: 2, column: 3 }] })) },
});

export function answerGraphql(fake: FakeGitHub, body: Record<string, unknown> | undefined): GraphqlAnswer {
  const query = typeof body?.query === 'string' ? body.query : '';
  const variables = (body?.variables ?? {}) as Record<string, unknown>;
  if (!query)
    return {
      status: 400,
      operation: 'invalid',
      body: { message: 'A query attribute must be specified and must be a string.' },
    };
  const kind = /^\s*mutation\b/.test(query) ? 'mutation' : 'query';

  const index = fake.graphqlInjected.findIndex((i) => i.operation === undefined || i.operation === kind);
  if (index >= 0) {
    const [injected] = fake.graphqlInjected.splice(index, 1);
    const answer = failed('injected', null, { type: injected!.type, message: injected!.message });
    return { ...answer, headers: injected!.headers };
  }

  if (kind === 'mutation' && /createLinkedBranch\s*\(\s*input:\s*\$input\s*\)/.test(query))
    return createLinkedBranch(fake, query, variables);
  if (kind === 'query' && /\blinkedBranches\s*\(/.test(query)) return linkedBranches(fake, query, variables);
  if (kind === 'query' && /\bdefaultBranchRef\b/.test(query)) return issueAndHead(fake, query, variables);
  return failed('unknown', null, {
    message: `fake GitHub: unsupported GraphQL operation: ${query.replace(/\s+/g, ' ').slice(0, 120)}`,
  });
}

/** The repository and issue named by `owner`, `name`, `number`, or the NOT_FOUND answer GitHub gives. */
function lookup(
  fake: FakeGitHub,
  operation: string,
  variables: Record<string, unknown>,
): { issue: FakeIssue } | { answer: GraphqlAnswer } {
  const { owner, name, number } = variables;
  if (owner !== fake.owner || name !== fake.repo) {
    return {
      answer: failed(
        operation,
        { repository: null },
        {
          type: 'NOT_FOUND',
          path: ['repository'],
          message: `Could not resolve to a Repository with the name '${String(owner)}/${String(name)}'.`,
        },
      ),
    };
  }
  if (typeof number !== 'number' || !Number.isInteger(number)) {
    return { answer: failed(operation, null, { message: `Variable $number of type Int! was provided invalid value` }) };
  }
  // A pull request's number is no Issue in GraphQL.
  const issue = fake.issues.find((i) => i.number === number);
  if (!issue) {
    return {
      answer: failed(
        operation,
        { repository: { issue: null } },
        {
          type: 'NOT_FOUND',
          path: ['repository', 'issue'],
          message: `Could not resolve to an Issue with the number of ${number}.`,
        },
      ),
    };
  }
  return { issue };
}

function issueAndHead(fake: FakeGitHub, query: string, variables: Record<string, unknown>): GraphqlAnswer {
  const operation = 'IssueAndHead';
  if (
    !/\bissue\s*\(\s*number:/.test(query) ||
    !/defaultBranchRef\s*\{\s*target\s*\{\s*oid\s*\}/.test(query) ||
    !/repository\s*\([^)]*\)\s*\{\s*id\b/.test(query)
  ) {
    return failed(operation, null, {
      message: 'fake GitHub: IssueAndHead must select repository.id, issue(number:).id and defaultBranchRef.target.oid',
    });
  }
  const found = lookup(fake, operation, variables);
  if ('answer' in found) return found.answer;
  const head = fake.resolveRef(fake.defaultBranch);
  return {
    status: 200,
    operation,
    body: {
      data: {
        repository: {
          id: fake.repoNodeId,
          issue: { id: fake.issueNodeId(found.issue.number) },
          defaultBranchRef: head ? { target: { oid: head } } : null,
        },
      },
    },
  };
}

function linkedBranches(fake: FakeGitHub, query: string, variables: Record<string, unknown>): GraphqlAnswer {
  const operation = 'LinkedBranches';
  const first = /linkedBranches\s*\(\s*first:\s*(\d+)/.exec(query);
  if (!first) {
    return failed(operation, null, {
      type: 'MISSING_PAGINATION_BOUNDARIES',
      path: ['repository', 'issue', 'linkedBranches'],
      message: 'You must provide a `first` or `last` value to properly paginate the `linkedBranches` connection.',
    });
  }
  const size = Number(first[1]);
  if (size > MAX_PAGE) {
    return failed(operation, null, {
      type: 'EXCESSIVE_PAGINATION',
      path: ['repository', 'issue', 'linkedBranches'],
      message: `Requesting ${size} records on the \`linkedBranches\` connection exceeds the \`first\` limit of ${MAX_PAGE} records.`,
    });
  }
  if (
    !/after:\s*\$cursor/.test(query) ||
    !/pageInfo\s*\{[^}]*hasNextPage[^}]*\}/.test(query) ||
    !/pageInfo\s*\{[^}]*endCursor[^}]*\}/.test(query) ||
    !/nodes\s*\{\s*ref\s*\{\s*name\s*\}/.test(query)
  ) {
    return failed(operation, null, {
      message:
        'fake GitHub: LinkedBranches must page with after: $cursor and select nodes.ref.name and pageInfo { hasNextPage endCursor }',
    });
  }
  const found = lookup(fake, operation, variables);
  if ('answer' in found) return found.answer;
  const names = fake.linkedBranches.get(found.issue.number) ?? [];
  const cursor = variables.cursor;
  let start = 0;
  if (cursor !== null && cursor !== undefined) {
    const offset = typeof cursor === 'string' ? decodeCursor(cursor) : undefined;
    if (offset === undefined)
      return failed(operation, null, {
        type: 'INVALID_CURSOR_ARGUMENTS',
        path: ['repository', 'issue', 'linkedBranches'],
        message: `\`${String(cursor)}\` does not appear to be a valid cursor.`,
      });
    start = offset + 1;
  }
  const page = names.slice(start, start + size);
  const end = start + page.length - 1;
  return {
    status: 200,
    operation,
    body: {
      data: {
        repository: {
          issue: {
            linkedBranches: {
              nodes: page.map((name) => ({ ref: { name } })),
              pageInfo: { hasNextPage: end + 1 < names.length, endCursor: page.length ? encodeCursor(end) : null },
            },
          },
        },
      },
    },
  };
}

function createLinkedBranch(fake: FakeGitHub, query: string, variables: Record<string, unknown>): GraphqlAnswer {
  const operation = 'CreateLinkedBranch';
  const path = ['createLinkedBranch'];
  const refused = (type: string | undefined, message: string) =>
    failed(operation, { createLinkedBranch: null }, { type, path, message });
  if (!/linkedBranch\s*\{\s*ref\s*\{\s*name\s*\}/.test(query))
    return refused(undefined, 'fake GitHub: CreateLinkedBranch must select linkedBranch.ref.name');
  const input = variables.input as Record<string, unknown> | undefined;
  if (!input || typeof input.issueId !== 'string' || typeof input.oid !== 'string') {
    return failed(operation, null, {
      message:
        'Variable $input of type CreateLinkedBranchInput! was provided invalid value for issueId (Expected value to not be null), oid (Expected value to not be null)',
    });
  }
  if (!fake.scopes.has('repo')) return refused('FORBIDDEN', 'Resource not accessible by personal access token');
  const issue = fake.issues.find((i) => fake.issueNodeId(i.number) === input.issueId);
  if (!issue) return refused('NOT_FOUND', `Could not resolve to a node with the global id of '${input.issueId}'`);
  if (input.repositoryId !== undefined && input.repositoryId !== fake.repoNodeId)
    return refused('NOT_FOUND', `Could not resolve to a node with the global id of '${String(input.repositoryId)}'`);
  if (!/^[0-9a-f]{40}$/.test(input.oid) || !fake.hasCommit(input.oid))
    return refused('NOT_FOUND', `Could not resolve to a Commit with the oid of '${input.oid}'.`);
  const name =
    typeof input.name === 'string'
      ? input.name.replace(/^refs\/heads\//, '')
      : `${issue.number}-${issue.title
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '')}`;
  if (fake.resolveRef(name) !== undefined) return refused('UNPROCESSABLE', 'Name already exists on this repository');
  if ([...fake.linkedBranches.values()].some((names) => names.includes(name)))
    return refused('UNPROCESSABLE', 'Validation failed: Branch name has already been taken');
  if (!fake.createBranch(name, input.oid)) return refused('UNPROCESSABLE', 'Ref cannot be created');
  fake.linkedBranches.set(issue.number, [...(fake.linkedBranches.get(issue.number) ?? []), name]);
  return { status: 200, operation, body: { data: { createLinkedBranch: { linkedBranch: { ref: { name } } } } } };
}

// Opaque to the client, as GitHub's are (base64 of a position).
const encodeCursor = (index: number) => Buffer.from(`cursor:v2:${index}`).toString('base64');
function decodeCursor(cursor: string): number | undefined {
  const match = /^cursor:v2:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString());
  return match ? Number(match[1]) : undefined;
}
