// Status conditions as apimachinery's meta.SetStatusCondition writes them, used by every reconciler:
// `lastTransitionTime` moves only when `status` changes (a new reason or message alone keeps the time), and
// each condition carries the generation it was computed from. Also the reasons both kinds report, so a
// reason is spelled in one place. Not here: which reason applies when (the kinds' decide modules).
import type { Condition, ConditionStatus, ConditionType } from '../resources/index.js';

/** Every reason the reconcilers write (issue #19), plus RegistrationRefused for a bridge 4xx it cannot classify. */
export const REASONS = {
  Registered: 'Registered',
  Online: 'Online',
  Offline: 'Offline',
  ShipUnreachable: 'ShipUnreachable',
  NameConflict: 'NameConflict',
  NameMismatch: 'NameMismatch',
  TokensInvalid: 'TokensInvalid',
  BridgeUnavailable: 'BridgeUnavailable',
  BridgeUnauthorized: 'BridgeUnauthorized',
  RegistrationRefused: 'RegistrationRefused',
  Deleting: 'Deleting',
} as const;
export type Reason = (typeof REASONS)[keyof typeof REASONS];

export interface ConditionInput {
  type: ConditionType;
  status: ConditionStatus;
  reason: Reason;
  message: string;
}

/** The condition API servers accept: a message is bounded (32 KiB); ours stay far below, but a bridge error is echoed. */
const MESSAGE_MAX = 1024;

/**
 * `conditions` with `input` set as meta.SetStatusCondition does: the transition time is kept unless the
 * status changed (or the condition is new), everything else is overwritten. Returns a new array; the order
 * of existing conditions is kept and a new type is appended.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  generation: number | undefined,
  now: string,
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((condition) => condition.type === input.type);
  const existing = index >= 0 ? list[index] : undefined;
  const next: Condition = {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: input.message.length > MESSAGE_MAX ? `${input.message.slice(0, MESSAGE_MAX - 1)}…` : input.message,
    lastTransitionTime: existing && existing.status === input.status ? existing.lastTransitionTime : now,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: ConditionType,
): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

/** Kubernetes timestamps: RFC 3339 to the second, as the API server writes them. */
export function kubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
