// The names the reconcilers agree on with the runtime, the chart and each other: the resources they read
// and write, labels and annotations the operator sets, and the defaults of its reconcile options
// (docs/DECISIONS.md, "Kubernetes: the operator's reconcilers"). Names fixed by docs/architecture.md §10 (finalizer,
// managed-by label, token keys) live in operator/resources/.
import type { ResourceRef } from '../runtime/controller.js';
import { GROUP, VERSION } from '../resources/index.js';

export const SHIP_RESOURCE: ResourceRef = {
  group: GROUP,
  version: VERSION,
  plural: 'ships',
  kind: 'Ship',
  namespaced: true,
};
export const REPO_RESOURCE: ResourceRef = {
  group: GROUP,
  version: VERSION,
  plural: 'repos',
  kind: 'Repo',
  namespaced: true,
};
export const SECRET_RESOURCE: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'secrets',
  kind: 'Secret',
  namespaced: true,
};
export const POD_RESOURCE: ResourceRef = { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true };
export const DAEMONSET_RESOURCE: ResourceRef = {
  group: 'apps',
  version: 'v1',
  plural: 'daemonsets',
  kind: 'DaemonSet',
  namespaced: true,
};

/** On every object the operator creates (Secrets, managed Ships). */
export const MANAGED_BY_OPERATOR = { 'app.kubernetes.io/managed-by': 'svc-operator' } as const;

/**
 * The Secrets the operator watches and caches: the ones it created (Generated token pairs, the chart's).
 * Every other Secret of the namespace stays out of its memory; a user's `spec.auth.secretRef` Secret is
 * read from the API server when a reconcile needs it (docs/DECISIONS.md, "which Secrets are watched").
 */
export const OPERATOR_SECRETS_SELECTOR = Object.entries(MANAGED_BY_OPERATOR)
  .map(([label, value]) => `${label}=${value}`)
  .join(',');

/** Value of MANAGED_BY_LABEL (`svc.dev/managed-by`) on Ships made for a ship DaemonSet. */
export const MANAGED_BY_DAEMONSET = 'daemonset';

/**
 * On a DaemonSet-managed Ship: when the operator first saw its node without a ready ship pod (RFC 3339).
 * Kept on the object, not in memory, so the grace period survives an operator restart or a new leader.
 */
export const NODE_WITHOUT_SHIP_SINCE = 'svc.dev/node-without-ship-since';

/**
 * On a ship DaemonSet (the chart's `ship.registration`): which address of a ready pod its Ship is registered
 * at. `nodeIP` (or absent): the node's, where hostPort or hostNetwork put the ship; `podIP`: the pod's own,
 * which the bridge reaches over the pod network with no hostPort (the Pod Security `baseline` level).
 */
export const SHIP_ADDRESS_ANNOTATION = 'svc.dev/ship-address';
export const SHIP_ADDRESSES = ['nodeIP', 'podIP'] as const;

/**
 * On a Ship whose pair is Generated (every DaemonSet-managed Ship): a new value asks the operator to rotate
 * the pair (`kubectl annotate ship NODE svc.dev/rotate-tokens="$(date +%s)" --overwrite`). The new pair is
 * written into the same Secret, which records the value in TOKENS_ROTATION_ANNOTATION, and the ship is
 * registered again with it; the node's ship fetches it at the bridge's next call (ship/tokens/).
 */
export const ROTATE_TOKENS_ANNOTATION = 'svc.dev/rotate-tokens';
export const TOKENS_ROTATION_ANNOTATION = 'svc.dev/tokens-rotation';

/** Defaults of the options the reconcilers take beyond the runtime's OperatorOptions. */
export const RECONCILE_DEFAULTS = {
  /** Labels selecting the ship DaemonSet(s) the operator manages Ships for. */
  shipDaemonSetSelector: 'app.kubernetes.io/name=svc,app.kubernetes.io/component=ship',
  /** The port a DaemonSet ship listens on, on its node's host IP (the ship's default, 4700). */
  daemonsetShipPort: 4700,
  /** First-admin credentials (keys username, email, password): the bridge's SVC_BRIDGE_ADMIN_* and the operator's login. */
  adminSecret: 'svc-admin',
  adminUsername: 'admin',
  adminEmail: 'admin@svc.invalid',
  /** The bundled PostgreSQL's password (key password). */
  postgresSecret: 'svc-postgres',
  /** How often a registered object's status is refreshed from the bridge (issue #19: 30 s). */
  refreshMs: 30_000,
  /** Retry after the bridge could not be reached. */
  bridgeRetryMs: 10_000,
  /** Retry after the ship did not answer the bridge's probe. */
  shipRetryMs: 15_000,
  /** How long a GET /ships or GET /repos answer is shared between reconciles of different objects. */
  rosterMaxAgeMs: 1_000,
  /** How long a NameMismatch stands before the ship is probed (registered and deregistered) again. */
  nameMismatchRetryMs: 5 * 60_000,
} as const;
