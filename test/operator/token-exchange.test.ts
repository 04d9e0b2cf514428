// The ships' token exchange, decided as a table (operator/tokens/exchange-decide.ts): only a ship
// DaemonSet's live pod gets an answer, and only the pair of the Ship named after its own node. The chart's
// process-level test (test/chart/service-e2e.test.ts) runs it end to end against the fake API server.
import { describe, expect, it } from 'vitest';
import type { V1Pod, V1Secret, V1TokenReviewStatus } from '@kubernetes/client-node';
import type { ShipResource } from '../../operator/resources/index.js';
import {
  decideExchange,
  reviewedPod,
  SHIP_TOKEN_AUDIENCE,
  type ExchangeFacts,
} from '../../operator/tokens/exchange-decide.js';
import { matchesSelector } from '../../operator/tokens/exchange-server.js';

const SELECTOR = 'app.kubernetes.io/name=svc,app.kubernetes.io/component=ship';
const b64 = (text: string) => Buffer.from(text).toString('base64');

const review = (overrides: Partial<V1TokenReviewStatus> = {}): V1TokenReviewStatus => ({
  authenticated: true,
  audiences: [SHIP_TOKEN_AUDIENCE],
  user: {
    username: 'system:serviceaccount:svc:svc-ship',
    extra: { 'authentication.kubernetes.io/pod-name': ['ship-a'], 'authentication.kubernetes.io/pod-uid': ['uid-a'] },
  },
  ...overrides,
});

const pod = (
  overrides: { uid?: string; node?: string; owner?: string; labels?: Record<string, string> } = {},
): V1Pod => ({
  metadata: {
    name: 'ship-a',
    namespace: 'svc',
    uid: overrides.uid ?? 'uid-a',
    labels: overrides.labels ?? { 'app.kubernetes.io/name': 'svc', 'app.kubernetes.io/component': 'ship' },
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: overrides.owner ?? 'DaemonSet', name: 'svc-ship', uid: 'ds', controller: true },
    ],
  },
  spec: { containers: [], nodeName: overrides.node ?? 'node-a' },
});

const ship = (
  labels: Record<string, string> = { 'svc.dev/managed-by': 'daemonset' },
  auth: ShipResource['spec']['auth'] = { mode: 'Generated' },
): ShipResource => ({
  apiVersion: 'svc.dev/v1alpha1',
  kind: 'Ship',
  metadata: { name: 'node-a', namespace: 'svc', uid: 'ship-uid', labels },
  spec: { url: 'http://10.0.0.1:4700', auth },
});
const secret: V1Secret = {
  metadata: {
    name: 'node-a-tokens',
    ownerReferences: [{ apiVersion: 'svc.dev/v1alpha1', kind: 'Ship', name: 'node-a', uid: 'ship-uid' }],
  },
  data: { shipToken: b64('st-a'), bridgeToken: b64('bt-a') },
};

const facts = (overrides: Partial<ExchangeFacts> = {}): ExchangeFacts => ({
  claimed: { namespace: 'svc', pod: 'ship-a', uid: 'uid-a' },
  pod: pod(),
  isShipPod: (each) => matchesSelector(SELECTOR, each.metadata?.labels),
  namespace: 'svc',
  ship: ship(),
  secret,
  ...overrides,
});

describe('reviewedPod', () => {
  it.each([
    ['an unauthenticated token', review({ authenticated: false }), 401],
    ['a token for another audience', review({ audiences: ['https://kubernetes.default.svc'] }), 401],
    [
      'a token bound to no pod (a legacy Secret token)',
      review({ user: { username: 'system:serviceaccount:svc:svc-ship' } }),
      403,
    ],
    ['a user, not a service account', review({ user: { username: 'alice', extra: review().user!.extra } }), 403],
  ])('refuses %s', (_name, status, code) => {
    expect(reviewedPod(status)).toMatchObject({ status: code });
  });

  it('names the pod of a pod-bound service-account token', () => {
    expect(reviewedPod(review())).toEqual({ namespace: 'svc', pod: 'ship-a', uid: 'uid-a' });
  });
});

describe('decideExchange', () => {
  it("answers a ship pod with the pair of its own node's Ship", () => {
    expect(decideExchange(facts())).toEqual({
      status: 200,
      pair: { shipToken: 'st-a', bridgeToken: 'bt-a' },
      node: 'node-a',
    });
  });

  it.each<[string, Partial<ExchangeFacts>, number, string]>([
    [
      'another namespace than the one served',
      { claimed: { namespace: 'other', pod: 'ship-a', uid: 'uid-a' } },
      403,
      'namespace other is not served',
    ],
    ['a pod that is gone', { pod: undefined }, 403, 'no longer exists'],
    ['a pod recreated under the same name (another uid)', { pod: pod({ uid: 'uid-b' }) }, 403, 'no longer exists'],
    ['a pod no DaemonSet controls', { pod: pod({ owner: 'ReplicaSet' }) }, 403, "not a ship DaemonSet's pod"],
    [
      'a DaemonSet pod that is not a ship (the session holder)',
      { pod: pod({ labels: { 'app.kubernetes.io/name': 'svc', 'app.kubernetes.io/component': 'session-holder' } }) },
      403,
      "not a ship DaemonSet's pod",
    ],
    ['a pod not scheduled yet', { pod: { ...pod(), spec: { containers: [] } } }, 503, 'not scheduled'],
    [
      'a node without its Ship yet',
      { ship: undefined, secret: undefined },
      404,
      'no DaemonSet-managed Ship for node node-a',
    ],
    ["a user's Ship named like the node", { ship: ship({}) }, 404, 'no DaemonSet-managed Ship'],
    [
      "a Ship whose pair is a user's Secret",
      { ship: ship(undefined, { mode: 'Secret', secretRef: { name: 'node-a-tokens' } }) },
      404,
      'no token pair for node node-a',
    ],
    ['a Ship whose pair is not made yet', { secret: undefined }, 404, 'no token pair for node node-a'],
  ])('refuses %s', (_name, overrides, status, message) => {
    const answer = decideExchange(facts(overrides));
    expect(answer).toMatchObject({ status, error: expect.stringContaining(message) });
    expect(JSON.stringify(answer)).not.toContain('bt-a');
  });
});
