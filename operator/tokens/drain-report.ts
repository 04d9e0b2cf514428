// The drain report's receiving end (`POST /drain-report` on the token exchange's port; issue #30,
// docs/DECISIONS.md "Drain report"). A session holder that got SIGTERM scanned its node's workspaces
// (ship/git/unpushed-work.ts) and presents its pod's projected token (audience DRAIN_REPORT_AUDIENCE, not the
// ships' one: this token fetches no pair). Who it is is decided as for the exchange (exchange-decide.ts): the
// TokenReview names a live pod, controlled by a DaemonSet, with the session-holder labels; its node names the
// Ship. A pod can report only on its own node's Ship. The operator records one Warning Event `UnpushedWork`
// per workspace on that Ship and forwards the report to the bridge, which logs it; the bridge being away
// costs the log line, not the Events. Tested as a table in test/operator/drain-report.test.ts.
import type { V1Pod } from '@kubernetes/client-node';
import { describeFindings, type DrainReport } from '../../protocol/index.js';
import type { EventSpec } from '../reconcile/outcomes.js';
import type { ShipResource } from '../resources/index.js';
import { callerNode, type ClaimedPod, type Refusal } from './exchange-decide.js';

export const DRAIN_REPORT_AUDIENCE = 'svc.dev/drain-report';
export const DRAIN_REPORT_REASON = 'UnpushedWork';
/** Labels of the session holders' pods (charts/svc/templates/ship/session-holder.yaml). */
export const HOLDER_POD_SELECTOR = 'app.kubernetes.io/name=svc,app.kubernetes.io/component=session-holder';
/** Longer than any event message we write; the API server keeps what it is given, `kubectl` shows it whole. */
const MESSAGE_MAX = 1_000;

export type DrainDecision = { status: 200; ship: ShipResource; node: string } | Refusal;

export interface DrainFacts {
  claimed: ClaimedPod;
  pod: V1Pod | undefined;
  isHolderPod: (pod: V1Pod) => boolean;
  /** Namespaces the operator serves (undefined: all). */
  namespace: string | undefined;
  /** The Ship named after the pod's node, if any. */
  ship: ShipResource | undefined;
}

export function decideDrainReport(facts: DrainFacts): DrainDecision {
  const caller = callerNode(facts.claimed, facts.pod, facts.namespace, facts.isHolderPod, 'session holder');
  if ('status' in caller) return caller;
  if (!facts.ship) return { status: 404, error: `no Ship for node ${caller.node}` };
  return { status: 200, ship: facts.ship, node: caller.node };
}

/** One Warning Event per workspace the report names: which one, and what was found. */
export function drainEvents(node: string, report: DrainReport): EventSpec[] {
  return report.workspaces.map((found) => ({
    type: 'Warning' as const,
    reason: DRAIN_REPORT_REASON,
    message:
      `node ${node} is draining: workspace ${found.repo}/${found.name} has unpushed work: ${describeFindings(found)}`.slice(
        0,
        MESSAGE_MAX,
      ),
  }));
}
