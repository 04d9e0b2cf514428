// The DaemonSet reconciler: keyed by a ship DaemonSet (selected by options.shipDaemonSetSelector), it applies
// decideDaemonSet's plan — create, update, stamp and remove managed Ships. The Ships themselves are then
// registered by the Ship reconciler like any other. Watches: the DaemonSet's pods (same selector: the chart
// gives the pod template those labels) and the managed Ships, both mapped to their owning DaemonSet.
import type { KubernetesObject, V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import type { ShipResource } from '../resources/index.js';
import { MANAGED_BY_LABEL } from '../resources/index.js';
import {
  ownedBy,
  type ObjectKey,
  type ReconcileResult,
  type Reconciler,
  type SecondaryWatch,
} from '../runtime/controller.js';
import { isApiStatus } from './cluster.js';
import type { ReconcileDeps } from './context.js';
import { decideDaemonSet } from './daemonset-decide.js';
import {
  DAEMONSET_RESOURCE,
  MANAGED_BY_DAEMONSET,
  NODE_WITHOUT_SHIP_SINCE,
  POD_RESOURCE,
  SHIP_RESOURCE,
} from './names.js';

export class DaemonSetShipsReconciler implements Reconciler {
  readonly kind = 'DaemonSet';
  readonly resource = DAEMONSET_RESOURCE;
  readonly labelSelector: string;
  readonly watches: readonly SecondaryWatch[];
  /** Skips already reported, so a node's skip is logged once, not on every reconcile. */
  private readonly reported = new Set<string>();

  constructor(private readonly deps: ReconcileDeps) {
    this.labelSelector = deps.options.shipDaemonSetSelector;
    this.watches = [
      { resource: POD_RESOURCE, labelSelector: deps.options.shipDaemonSetSelector, map: ownedBy('DaemonSet') },
      {
        resource: SHIP_RESOURCE,
        labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_DAEMONSET}`,
        map: ownedBy('DaemonSet'),
      },
    ];
  }

  async reconcile(key: ObjectKey, signal?: AbortSignal): Promise<ReconcileResult | undefined> {
    const { cache, cluster, clock, options } = this.deps;
    const daemonSet = cache.get<V1DaemonSet & KubernetesObject>(DAEMONSET_RESOURCE, key);
    // Deleted: its managed Ships are garbage-collected through their owner references.
    if (!daemonSet || daemonSet.metadata?.deletionTimestamp) return;
    const log = this.deps.log.child({ daemonSet: `${key.namespace}/${key.name}` });
    const plan = decideDaemonSet({
      daemonSet,
      pods: cache.list<V1Pod & KubernetesObject>(POD_RESOURCE, key.namespace),
      ships: cache.list<ShipResource & KubernetesObject>(SHIP_RESOURCE, key.namespace),
      now: clock(),
      graceMs: options.daemonsetGraceMs,
      shipPort: options.daemonsetShipPort,
    });
    const at = (name: string) => ({ namespace: key.namespace, name });
    for (const ship of plan.create) {
      if (signal?.aborted) return;
      try {
        await cluster.createObject(SHIP_RESOURCE, key.namespace, ship as ShipResource & KubernetesObject);
        log.info({ node: ship.metadata.name, url: ship.spec.url }, 'created a Ship for the node');
      } catch (error) {
        if (!isApiStatus(error, 409)) throw error; // made by an earlier reconcile the cache has not shown yet
      }
    }
    for (const { name, spec } of plan.update) {
      await cluster.patchObject(SHIP_RESOURCE, at(name), { spec });
      log.info({ node: name, url: spec.url }, "updated the node's Ship");
    }
    for (const { name, since } of plan.annotate) {
      await cluster.patchObject(SHIP_RESOURCE, at(name), {
        metadata: { annotations: { [NODE_WITHOUT_SHIP_SINCE]: since } },
      });
      if (since)
        log.info(
          { node: name, graceMs: options.daemonsetGraceMs },
          'node has no ready ship pod: its Ship stays for the grace period',
        );
      else log.info({ node: name }, 'node has a ready ship pod again');
    }
    for (const { name, uid } of plan.remove) {
      await cluster.deleteObject(SHIP_RESOURCE, at(name), uid);
      log.info({ node: name }, 'no ready ship pod on the node for the whole grace period: deleted its Ship');
    }
    for (const { node, reason } of plan.skipped) {
      const id = `${key.namespace}/${key.name}/${node}`;
      if (this.reported.has(id)) continue;
      this.reported.add(id);
      log.warn({ node }, reason);
    }
    return plan.requeueAfterMs !== undefined ? { requeueAfterMs: plan.requeueAfterMs } : {};
  }
}
