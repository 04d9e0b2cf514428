// Which token pair a caller of the token exchange gets, decided purely from what the API server said about
// its credential and what the cache holds (tested as a table in test/operator/token-exchange.test.ts).
// The caller presents a projected service-account token (audience SHIP_TOKEN_AUDIENCE) of its pod; the
// TokenReview names the pod (name and uid, the claims of a pod-bound token). Only a ship DaemonSet's pod gets
// an answer, and only the pair of the Ship named after the node it runs on: a token read on one node opens no
// other node's ship (docs/DECISIONS.md, "Per-node token pairs").
import type { V1Pod, V1Secret, V1TokenReviewStatus } from '@kubernetes/client-node';
import { MANAGED_BY_LABEL, type ShipResource } from '../resources/index.js';
import { MANAGED_BY_DAEMONSET } from '../reconcile/names.js';
import { authModeOf, readTokens } from '../reconcile/tokens.js';

/** The audience a ship's projected token is minted for; a token for any other audience is refused. */
export const SHIP_TOKEN_AUDIENCE = 'svc.dev/ship-tokens';
/** The claims of a pod-bound service-account token, as TokenReview reports them in `user.extra`. */
export const POD_NAME_EXTRA = 'authentication.kubernetes.io/pod-name';
export const POD_UID_EXTRA = 'authentication.kubernetes.io/pod-uid';

/** Why a caller of the exchange or of the drain report (drain-report.ts) gets nothing. */
export type Refusal = { status: 401 | 403 | 404 | 503; error: string };

export type ExchangeAnswer = { status: 200; pair: { shipToken: string; bridgeToken: string }; node: string } | Refusal;

/** The pod a pod-bound service-account token names (TokenReview's `user.extra`). */
export interface ClaimedPod {
  namespace: string;
  pod: string;
  uid: string;
}

/** The caller's namespace and pod, from a TokenReview's status; a refusal when it names none. */
export function reviewedPod(
  review: V1TokenReviewStatus | undefined,
  audience = SHIP_TOKEN_AUDIENCE,
): ClaimedPod | Refusal {
  if (!review?.authenticated) return { status: 401, error: 'the credential is not a valid service-account token' };
  if (!(review.audiences ?? []).includes(audience))
    return { status: 401, error: `the credential is not minted for ${audience}` };
  const match = /^system:serviceaccount:([^:]+):[^:]+$/.exec(review.user?.username ?? '');
  const pod = review.user?.extra?.[POD_NAME_EXTRA]?.[0];
  const uid = review.user?.extra?.[POD_UID_EXTRA]?.[0];
  if (!match || !pod || !uid) return { status: 403, error: 'the credential is not bound to a pod' };
  return { namespace: match[1]!, pod, uid };
}

export interface ExchangeFacts {
  /** The reviewed pod's identity. */
  claimed: ClaimedPod;
  /** The pod as the API server has it now (undefined: gone). */
  pod: V1Pod | undefined;
  /** Whether the pod's labels match the ship DaemonSet selector. */
  isShipPod: (pod: V1Pod) => boolean;
  /** Namespaces the operator serves (undefined: all). */
  namespace: string | undefined;
  ship: ShipResource | undefined;
  secret: V1Secret | undefined;
}

/**
 * The node the caller runs on, when the claimed pod is in a namespace served, is still the pod its token was
 * bound to, and is a pod of the DaemonSet `role` names (controlled by a DaemonSet, `isRolePod` by its labels);
 * else the refusal. Shared by the exchange and the drain report, so both trust a caller the same way.
 */
export function callerNode(
  claimed: ClaimedPod,
  pod: V1Pod | undefined,
  namespace: string | undefined,
  isRolePod: (pod: V1Pod) => boolean,
  role: string,
): { node: string } | Refusal {
  if (namespace !== undefined && claimed.namespace !== namespace)
    return { status: 403, error: `namespace ${claimed.namespace} is not served by this operator` };
  // A deleted and recreated pod of the same name has another uid: the old pod's token is refused.
  if (!pod || pod.metadata?.uid !== claimed.uid)
    return { status: 403, error: `pod ${claimed.namespace}/${claimed.pod} no longer exists` };
  const controller = (pod.metadata?.ownerReferences ?? []).find((owner) => owner.controller);
  if (controller?.kind !== 'DaemonSet' || !isRolePod(pod))
    return { status: 403, error: `pod ${claimed.namespace}/${claimed.pod} is not a ${role} DaemonSet's pod` };
  const node = pod.spec?.nodeName;
  if (!node) return { status: 503, error: `pod ${claimed.namespace}/${claimed.pod} is not scheduled yet` };
  return { node };
}

export function decideExchange(facts: ExchangeFacts): ExchangeAnswer {
  const caller = callerNode(facts.claimed, facts.pod, facts.namespace, facts.isShipPod, 'ship');
  if ('status' in caller) return caller;
  const { node } = caller;
  const ship = facts.ship;
  if (!ship || ship.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY_DAEMONSET)
    return { status: 404, error: `no DaemonSet-managed Ship for node ${node} yet` };
  const tokens = readTokens(ship, facts.secret);
  if (authModeOf(ship) !== 'Generated' || tokens.kind !== 'pair')
    return { status: 404, error: `no token pair for node ${node} yet` };
  return { status: 200, pair: { shipToken: tokens.shipToken, bridgeToken: tokens.bridgeToken }, node };
}
