// Ships for a ship DaemonSet, decided purely from the DaemonSet, its pods, the Ships in its namespace and
// the time (tested as a table with an injected clock). One managed Ship per node whose ship pod is Ready:
// named after the node, url http://<hostIP>:4700 (the port is an option; the pod's own IP instead when the
// DaemonSet's svc.dev/ship-address annotation says podIP), expectedName the node (the chart names each ship after
// its node, docs/architecture.md §10), auth Generated (a pair of its own in <node>-tokens, which only that node's ship pod
// can fetch: operator/tokens/), label svc.dev/managed-by=daemonset and a
// controller reference to the DaemonSet (so deleting the DaemonSet garbage-collects them, each deregistered
// by its own finalizer). A node that loses its ready ship pod keeps its Ship for the grace period (default
// 10 min; the start is stamped on the Ship so it survives operator restarts): rollouts and reboots do not
// release workspaces. A Ship not managed by this DaemonSet is never created over, changed or deleted.
import type { KubernetesObject, V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import {
  API_VERSION,
  MANAGED_BY_LABEL,
  SHIP_NAME_MAX_LENGTH,
  type ShipResource,
  type ShipSpec,
} from '../resources/index.js';
import {
  MANAGED_BY_DAEMONSET,
  MANAGED_BY_OPERATOR,
  NODE_WITHOUT_SHIP_SINCE,
  SHIP_ADDRESS_ANNOTATION,
  SHIP_ADDRESSES,
} from './names.js';
import { deepEqual } from './cluster.js';

export interface DaemonSetFacts {
  daemonSet: V1DaemonSet;
  /** Pods in the DaemonSet's namespace (those it owns are picked out here). */
  pods: readonly V1Pod[];
  /** Ships in the DaemonSet's namespace. */
  ships: readonly (ShipResource & KubernetesObject)[];
  now: number;
  graceMs: number;
  /** The port the ship listens on at its registered address (default 4700). */
  shipPort?: number;
}

export interface DaemonSetPlan {
  create: ShipResource[];
  /** Managed Ships whose spec no longer matches their node's pod (a new host or pod IP, another auth). */
  update: { name: string; spec: ShipSpec }[];
  /** Stamp (RFC 3339) or clear (null) the time a managed Ship's node was first seen without a ready ship pod. */
  annotate: { name: string; since: string | null }[];
  /** Managed Ships whose node has had no ready ship pod for the whole grace period. */
  remove: { name: string; uid: string | undefined }[];
  /** Nodes the DaemonSet runs a ready ship on that get no managed Ship, and why. */
  skipped: { node: string; reason: string }[];
  /** When the next grace period ends, if one is running. */
  requeueAfterMs?: number;
}

function podReady(pod: V1Pod): boolean {
  return (
    !pod.metadata?.deletionTimestamp &&
    pod.status?.phase === 'Running' &&
    (pod.status.conditions ?? []).some((condition) => condition.type === 'Ready' && condition.status === 'True')
  );
}

function ownedBy(object: { metadata?: { ownerReferences?: { uid: string }[] } }, uid: string | undefined): boolean {
  return !!uid && (object.metadata?.ownerReferences ?? []).some((owner) => owner.uid === uid);
}

function shipUrlFor(ip: string, port = 4700): string {
  return `http://${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
}

/** Which address of a pod its Ship is registered at (SHIP_ADDRESS_ANNOTATION); null for a value it does not know. */
function shipAddressOf(daemonSet: V1DaemonSet): (typeof SHIP_ADDRESSES)[number] | null {
  const value = daemonSet.metadata?.annotations?.[SHIP_ADDRESS_ANNOTATION] ?? 'nodeIP';
  return (SHIP_ADDRESSES as readonly string[]).includes(value) ? (value as (typeof SHIP_ADDRESSES)[number]) : null;
}

/** Node name → the address (host or pod IP) of a ready ship pod of this DaemonSet there (the first by pod name). */
function readyShipNodes(
  daemonSet: V1DaemonSet,
  pods: readonly V1Pod[],
  address: (typeof SHIP_ADDRESSES)[number],
): Map<string, string> {
  const nodes = new Map<string, string>();
  const owned = pods
    .filter((pod) => ownedBy(pod, daemonSet.metadata?.uid))
    .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const pod of owned) {
    const node = pod.spec?.nodeName;
    const ip = address === 'podIP' ? pod.status?.podIP : pod.status?.hostIP;
    if (node && ip && podReady(pod) && !nodes.has(node)) nodes.set(node, ip);
  }
  return nodes;
}

function isManagedBy(ship: ShipResource & KubernetesObject, daemonSet: V1DaemonSet): boolean {
  return ship.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_DAEMONSET && ownedBy(ship, daemonSet.metadata?.uid);
}

function desiredSpec(node: string, ip: string, port?: number): ShipSpec {
  return { url: shipUrlFor(ip, port), expectedName: node, auth: { mode: 'Generated' } };
}

export function managedShip(daemonSet: V1DaemonSet, node: string, ip: string, port?: number): ShipResource {
  return {
    apiVersion: API_VERSION,
    kind: 'Ship',
    metadata: {
      name: node,
      namespace: daemonSet.metadata?.namespace,
      labels: { ...MANAGED_BY_OPERATOR, [MANAGED_BY_LABEL]: MANAGED_BY_DAEMONSET },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          name: daemonSet.metadata?.name ?? '',
          uid: daemonSet.metadata?.uid ?? '',
          controller: true,
        },
      ],
    },
    spec: desiredSpec(node, ip, port),
  };
}

/** The spec fields the operator sets on a managed Ship, as they stand (server defaults ignored). */
function managedFields(spec: ShipSpec): ShipSpec {
  const auth = spec.auth?.secretRef
    ? { mode: spec.auth.mode, secretRef: spec.auth.secretRef }
    : { mode: spec.auth?.mode };
  return { url: spec.url, expectedName: spec.expectedName, auth: auth as ShipSpec['auth'] };
}

export function decideDaemonSet(facts: DaemonSetFacts): DaemonSetPlan {
  const { daemonSet, ships, now, graceMs } = facts;
  const plan: DaemonSetPlan = { create: [], update: [], annotate: [], remove: [], skipped: [] };
  const address = shipAddressOf(daemonSet);
  if (!address) {
    // Registering at an address it cannot name would point every Ship at nothing: leave them all as they are.
    const value = daemonSet.metadata?.annotations?.[SHIP_ADDRESS_ANNOTATION];
    plan.skipped.push({
      node: '*',
      reason: `the DaemonSet's ${SHIP_ADDRESS_ANNOTATION} annotation is ${JSON.stringify(value)}, not one of ${SHIP_ADDRESSES.join(', ')}: no Ship created, changed or removed`,
    });
    return plan;
  }
  const ready = readyShipNodes(daemonSet, facts.pods, address);
  const byName = new Map(ships.map((ship) => [ship.metadata.name ?? '', ship]));
  let nextDeadline = Infinity;
  for (const [node, ip] of [...ready.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const existing = byName.get(node);
    if (!existing) {
      if (node.length > SHIP_NAME_MAX_LENGTH) {
        plan.skipped.push({
          node,
          reason: `node name longer than ${SHIP_NAME_MAX_LENGTH} characters, the longest Ship name`,
        });
        continue;
      }
      plan.create.push(managedShip(daemonSet, node, ip, facts.shipPort));
      continue;
    }
    if (!isManagedBy(existing, daemonSet)) {
      plan.skipped.push({
        node,
        reason: `a Ship named ${node} exists that this DaemonSet does not manage; it is left alone`,
      });
      continue;
    }
    if (existing.metadata.deletionTimestamp) continue; // going away (grace over earlier); made again once gone
    const spec = desiredSpec(node, ip, facts.shipPort);
    if (!deepEqual(managedFields(existing.spec), spec)) plan.update.push({ name: node, spec });
    if (existing.metadata.annotations?.[NODE_WITHOUT_SHIP_SINCE] !== undefined)
      plan.annotate.push({ name: node, since: null });
  }
  for (const ship of ships) {
    const name = ship.metadata.name ?? '';
    if (ready.has(name) || !isManagedBy(ship, daemonSet) || ship.metadata.deletionTimestamp) continue;
    const stamped = ship.metadata.annotations?.[NODE_WITHOUT_SHIP_SINCE];
    const since = stamped ? Date.parse(stamped) : NaN;
    if (Number.isNaN(since)) {
      plan.annotate.push({ name, since: new Date(now).toISOString() });
      nextDeadline = Math.min(nextDeadline, graceMs);
      continue;
    }
    const left = since + graceMs - now;
    if (left <= 0) plan.remove.push({ name, uid: ship.metadata.uid });
    else nextDeadline = Math.min(nextDeadline, left);
  }
  if (nextDeadline !== Infinity) plan.requeueAfterMs = nextDeadline;
  return plan;
}
