// Shapes of the bridge's own surface: repos, ships, the bridge's workspace records and events.
import { Type, type Static } from 'typebox';
import { DeactivationReason, WorkspaceEventTypeSchema } from './events.js';
import { Identifier } from './identifier.js';
import { SystemResources } from './resources.js';
import { ActiveWorkspaceStatus, InactiveWorkspaceStatus, WorkspaceSummary } from './workspace.js';

/**
 * The forge providers the bridge serves: `custom` (plain git, what a repo registered without one gets) and
 * `github` (bridge/server.ts). The bridge stores any non-empty provider; another one only fails later.
 */
export const REPO_PROVIDERS = ['custom', 'github'] as const;
export const DEFAULT_REPO_PROVIDER = REPO_PROVIDERS[0];

export const Repo = Type.Object({ name: Identifier, url: Type.String(), provider: Type.String() });
export type Repo = Static<typeof Repo>;

export const CreateRepoRequest = Type.Object({
  name: Identifier,
  url: Type.String(),
  provider: Type.Optional(Type.String({ minLength: 1 })),
});
export type CreateRepoRequest = Static<typeof CreateRepoRequest>;

export const RepoParams = Type.Object({ name: Type.String() });
export type RepoParams = Static<typeof RepoParams>;

export const RepoBranch = Type.Object({ name: Type.String(), sha: Type.String() });
export type RepoBranch = Static<typeof RepoBranch>;

export const ShipStatus = Type.Union([Type.Literal('online'), Type.Literal('offline')]);
export type ShipStatus = Static<typeof ShipStatus>;

export const ShipInfo = Type.Object({ name: Identifier, url: Type.String(), status: ShipStatus });
export type ShipInfo = Static<typeof ShipInfo>;

export const RegisterShipRequest = Type.Object({
  url: Type.String(),
  shipToken: Type.Optional(Type.String()),
  bridgeToken: Type.Optional(Type.String()),
});
export type RegisterShipRequest = Static<typeof RegisterShipRequest>;

export const PullRequestRef = Type.Object({
  number: Type.Integer({ minimum: 1 }),
  state: Type.String(),
  url: Type.String(),
});
export type PullRequestRef = Static<typeof PullRequestRef>;

export const EphemeralWorkspace = Type.Object({
  issueNumber: Type.Integer({ minimum: 1 }),
  branch: Type.String(),
  cleanup: Type.Union([Type.Literal('watching'), Type.Literal('blocked')]),
  blockedReason: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
  blockedAt: Type.Union([Type.String(), Type.Null()]),
  pullRequest: Type.Union([PullRequestRef, Type.Null()]),
});
export type EphemeralWorkspace = Static<typeof EphemeralWorkspace>;

const BridgeFields = {
  ship: Type.String(),
  ephemeral: Type.Union([EphemeralWorkspace, Type.Null()]),
};

export const BridgeWorkspaceSummary = Type.Object({ ...WorkspaceSummary.properties, ...BridgeFields });
export type BridgeWorkspaceSummary = Static<typeof BridgeWorkspaceSummary>;

export const BridgeWorkspaceStatus = Type.Union([
  Type.Object({ ...InactiveWorkspaceStatus.properties, ...BridgeFields }),
  Type.Object({ ...ActiveWorkspaceStatus.properties, ...BridgeFields }),
]);
export type BridgeWorkspaceStatus = Static<typeof BridgeWorkspaceStatus>;

/**
 * The bridge's answer to POST /workspaces: the summary with `ship` and `ephemeral`, and `branchCreated` when
 * the ship said it (a ship older than the field does not; protocol/workspace.ts BranchOutcome).
 */
export const BridgeCreateWorkspaceResponse = Type.Object({
  ...BridgeWorkspaceSummary.properties,
  branchCreated: Type.Optional(Type.Boolean()),
});
export type BridgeCreateWorkspaceResponse = Static<typeof BridgeCreateWorkspaceResponse>;

/** The bridge's answer to POST …/branch: `ok`, and `branchCreated` when the ship said it. */
export const BridgeSwitchBranchResponse = Type.Object({
  ok: Type.Literal(true),
  branchCreated: Type.Optional(Type.Boolean()),
});
export type BridgeSwitchBranchResponse = Static<typeof BridgeSwitchBranchResponse>;

export const BridgeCreateWorkspaceRequest = Type.Object({
  ship: Type.String(),
  repoName: Identifier,
  name: Identifier,
  branch: Type.Optional(Type.String()),
  // A number, not an integer, in the schema: 0, -1 and 1.5 are the spec's 400, decided by the route.
  issueNumber: Type.Optional(Type.Number()),
  ephemeral: Type.Optional(Type.Boolean()),
});
export type BridgeCreateWorkspaceRequest = Static<typeof BridgeCreateWorkspaceRequest>;

/** The answer of POST /workspaces/sweep (spec): what one ephemeral cleanup pass did. */
export const SweepCounters = Type.Object({
  checked: Type.Integer({ minimum: 0, description: 'records whose pull requests were read this pass' }),
  destroyed: Type.Integer({ minimum: 0, description: 'workspaces deleted' }),
  blocked: Type.Integer({
    minimum: 0,
    description: 'cleanups the ship refused because the clone holds work no remote has',
  }),
  skipped: Type.Integer({
    minimum: 0,
    description: 'left for a later pass (offline ship, or the forge could not answer)',
  }),
  forgotten: Type.Integer({
    minimum: 0,
    description: 'records dropped because the workspace is gone and its ship was online to say so',
  }),
});
export type SweepCounters = Static<typeof SweepCounters>;

export const ShipSystemResources = Type.Object({
  ship: Type.String(),
  status: ShipStatus,
  resources: Type.Union([SystemResources, Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type ShipSystemResources = Static<typeof ShipSystemResources>;

/** The bridge's `/events` stream (spec "Bridge stream"): a fleet-wide `sync`, then one frame per change. */
export const BridgeSyncEvent = Type.Object({
  type: Type.Literal('sync'),
  at: Type.String(),
  workspaces: Type.Array(BridgeWorkspaceSummary),
});
export type BridgeSyncEvent = Static<typeof BridgeSyncEvent>;

export const BridgeWorkspaceChange = Type.Object({
  type: WorkspaceEventTypeSchema,
  at: Type.String(),
  workspace: BridgeWorkspaceSummary,
  reason: Type.Optional(DeactivationReason),
});
export type BridgeWorkspaceChange = Static<typeof BridgeWorkspaceChange>;

export const BridgeWorkspaceEvent = Type.Union([BridgeSyncEvent, BridgeWorkspaceChange]);
export type BridgeWorkspaceEvent = BridgeSyncEvent | BridgeWorkspaceChange;
