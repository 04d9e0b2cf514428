// The ship's event stream (FleetEvent): one `sync` on connect, then one event per workspace change.
import { Type, type Static } from 'typebox';
import { Identifier } from './identifier.js';
import { WorkspaceSummary } from './workspace.js';

/** The `type` of a change event, on the ship's stream and the bridge's alike. */
export const WorkspaceEventTypeSchema = Type.Union([
  Type.Literal('workspace.created'),
  Type.Literal('workspace.branch_changed'),
  Type.Literal('workspace.activated'),
  Type.Literal('workspace.deactivated'),
  Type.Literal('workspace.agent_status_changed'),
  Type.Literal('workspace.removed'),
]);
export type WorkspaceEventType = Static<typeof WorkspaceEventTypeSchema>;

export const SyncEvent = Type.Object({
  type: Type.Literal('sync'),
  ship: Identifier,
  at: Type.String(),
  workspaces: Type.Array(WorkspaceSummary),
});
export type SyncEvent = Static<typeof SyncEvent>;

/**
 * Why a workspace became inactive when no one asked (docs/DECISIONS.md "Why a session ended"): on a
 * `workspace.deactivated` only, and only when its session ended on its own (the shell exited, someone killed
 * it, the tmux server died). Absent on a deactivate a client requested.
 */
export const DeactivationReason = Type.Literal('session-ended');
export type DeactivationReason = Static<typeof DeactivationReason>;

export const WorkspaceEvent = Type.Object({
  type: WorkspaceEventTypeSchema,
  ship: Identifier,
  at: Type.String(),
  workspace: WorkspaceSummary,
  reason: Type.Optional(DeactivationReason),
});
export type WorkspaceEvent = Static<typeof WorkspaceEvent>;

export const FleetEvent = Type.Union([SyncEvent, WorkspaceEvent]);
export type FleetEvent = SyncEvent | WorkspaceEvent;

/** Close codes and reasons of the event socket. */
export const EVENT_CLOSE = {
  snapshotFailed: { code: 1011, reason: 'Failed to build workspace snapshot' },
  bufferLimit: { code: 1009, reason: 'Terminal buffer limit exceeded' },
  slowConsumer: { code: 1013, reason: 'Event subscriber too slow' },
} as const;
