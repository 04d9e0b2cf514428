// Workspace shapes of the ship: summary, status union, diff numbers, and the request/query bodies.
import { Type, type Static } from 'typebox';
import { AgentStatus } from './agent.js';
import { Identifier } from './identifier.js';
import { TERMINAL_INPUT_MAX_BYTES, TerminalInputText } from './terminal.js';

export const WorkspaceSummary = Type.Object({
  repoName: Identifier,
  name: Identifier,
  branch: Type.String(),
  active: Type.Boolean(),
  agent: Type.Union([AgentStatus, Type.Null()]),
});
export type WorkspaceSummary = Static<typeof WorkspaceSummary>;

export const WorkspaceDiff = Type.Object({
  added: Type.Number(),
  removed: Type.Number(),
  commits: Type.Number(),
});
export type WorkspaceDiff = Static<typeof WorkspaceDiff>;

export const InactiveWorkspaceStatus = Type.Object({
  state: Type.Literal('inactive'),
  repoName: Identifier,
  name: Identifier,
  branch: Type.String(),
});
export type InactiveWorkspaceStatus = Static<typeof InactiveWorkspaceStatus>;

export const ActiveWorkspaceStatus = Type.Object({
  state: Type.Literal('active'),
  repoName: Identifier,
  name: Identifier,
  branch: Type.String(),
  diff: WorkspaceDiff,
  agent: Type.Union([AgentStatus, Type.Null()]),
  issue: Type.Null(),
  mergeRequest: Type.Null(),
  ship: Identifier,
});
export type ActiveWorkspaceStatus = Static<typeof ActiveWorkspaceStatus>;

export const WorkspaceStatus = Type.Union([InactiveWorkspaceStatus, ActiveWorkspaceStatus]);
export type WorkspaceStatus = Static<typeof WorkspaceStatus>;

export const CreateWorkspaceRequest = Type.Object({
  url: Type.String(),
  repoName: Identifier,
  name: Identifier,
  branch: Type.String(),
});
export type CreateWorkspaceRequest = Static<typeof CreateWorkspaceRequest>;

export const SwitchBranchRequest = Type.Object({ branch: Type.String() });
export type SwitchBranchRequest = Static<typeof SwitchBranchRequest>;

/**
 * `POST …/input` (issue #16, `svc client send`): text pasted into the session as it is, then Enter unless
 * `enter` is false. Capped like terminal input (TERMINAL_INPUT_MAX_BYTES).
 */
export const SendInputRequest = Type.Object({
  text: TerminalInputText,
  enter: Type.Optional(Type.Boolean({ default: true })),
});
export type SendInputRequest = Static<typeof SendInputRequest>;

/** Body limit of `POST …/input` on ship and bridge: any text within the cap, every byte JSON-escaped. */
export const INPUT_BODY_LIMIT = 6 * TERMINAL_INPUT_MAX_BYTES + 4096;

export const WorkspaceParams = Type.Object({ repo: Type.String(), name: Type.String() });
export type WorkspaceParams = Static<typeof WorkspaceParams>;

/** `active` is a plain string: `true`/`false` filter, anything else means no filter. */
export const ListWorkspacesQuery = Type.Object({ active: Type.Optional(Type.String()) });
export type ListWorkspacesQuery = Static<typeof ListWorkspacesQuery>;

/** Diff options; omitted keys stay omitted. `paths` repeats the key, so one value or many. */
export const DiffQuery = Type.Object({
  staged: Type.Optional(Type.Boolean()),
  stat: Type.Optional(Type.Boolean()),
  nameOnly: Type.Optional(Type.Boolean()),
  range: Type.Optional(Type.String()),
  paths: Type.Optional(Type.Array(Type.String())),
  includeUntracked: Type.Optional(Type.Boolean()),
});
export type DiffQuery = Static<typeof DiffQuery>;

export const DeleteWorkspaceQuery = Type.Object({ force: Type.Optional(Type.Boolean()) });
export type DeleteWorkspaceQuery = Static<typeof DeleteWorkspaceQuery>;

export const OkResponse = Type.Object({ ok: Type.Literal(true) });
export type OkResponse = Static<typeof OkResponse>;

/**
 * svc's one field beyond the spec on the answers to create (beside the summary) and branch switch (beside
 * `ok`): true when the ship made the branch because no such name was there to check out, so a client can say
 * so instead of letting a typo pass as a branch (issue #15; docs/DECISIONS.md). Never in listings or events.
 */
export const BranchOutcome = Type.Object({ branchCreated: Type.Boolean() });
export type BranchOutcome = Static<typeof BranchOutcome>;

/** The ship's answer to POST /workspaces: the new workspace's summary and its BranchOutcome. */
export const CreateWorkspaceResponse = Type.Object({ ...WorkspaceSummary.properties, ...BranchOutcome.properties });
export type CreateWorkspaceResponse = Static<typeof CreateWorkspaceResponse>;

/** The ship's answer to POST …/branch: `ok` and the BranchOutcome. */
export const SwitchBranchResponse = Type.Object({ ...OkResponse.properties, ...BranchOutcome.properties });
export type SwitchBranchResponse = Static<typeof SwitchBranchResponse>;
