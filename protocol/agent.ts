// Agent status shapes: the five states, the status record, and the request bodies that change it.
import { Type, type Static } from 'typebox';

export const AGENT_STATES = ['idle', 'planning', 'building', 'verifying', 'awaiting'] as const;
export const AgentState = Type.Union([
  Type.Literal('idle'),
  Type.Literal('planning'),
  Type.Literal('building'),
  Type.Literal('verifying'),
  Type.Literal('awaiting'),
]);
export type AgentState = (typeof AGENT_STATES)[number];

/** An optional http(s) URL an agent attaches to a status update: the PR, issue or CI run it is about. */
export const AGENT_LINK_PATTERN = '^https?://[^\\s]+$';
export const AGENT_LINK_MAX_LENGTH = 2048;
export const AgentLink = Type.String({ pattern: AGENT_LINK_PATTERN, maxLength: AGENT_LINK_MAX_LENGTH });

export const AgentStatus = Type.Object({
  state: AgentState,
  /** Stored whole: no length limit (docs/DECISIONS.md); clients truncate for display. */
  description: Type.String(),
  model: Type.String(),
  provider: Type.String(),
  harness: Type.String(),
  /** Present when the latest update carried one; each update replaces it. */
  link: Type.Optional(AgentLink),
  /**
   * Set by the ship, never by the agent: planning, building or verifying with no pane output for the
   * ship's stale time (default 10 minutes). Absent means not stale; the next output or report clears it.
   */
  stale: Type.Optional(Type.Boolean()),
  /** With `stale` only: the last pane output or report the ship knew of (ISO 8601), for "no activity for N min". */
  quietSince: Type.Optional(Type.String()),
});
export type AgentStatus = Static<typeof AgentStatus>;

export const UpdateAgentStatusRequest = Type.Object({
  state: AgentState,
  description: Type.String(),
  link: Type.Optional(AgentLink),
});
export type UpdateAgentStatusRequest = Static<typeof UpdateAgentStatusRequest>;

/** Body of the agent initialization route (docs/architecture.md §8): fixes model, provider and harness. */
export const AgentInitRequest = Type.Object({
  model: Type.String(),
  provider: Type.String(),
  harness: Type.String(),
});
export type AgentInitRequest = Static<typeof AgentInitRequest>;

/** Body of POST /agent/credentials: the bridge's URL and the ship-agent token for repository tools. */
export const AgentCredentialsRequest = Type.Object({
  bridgeUrl: Type.String(),
  token: Type.String(),
});
export type AgentCredentialsRequest = Static<typeof AgentCredentialsRequest>;
