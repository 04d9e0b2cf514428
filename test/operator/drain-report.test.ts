// The drain report's receiving end (operator/tokens/drain-report.ts, served by exchange-server.ts): decided
// as a table — only a session holder DaemonSet's live pod may report, and only on its own node's Ship — and
// run over HTTP with a fake cluster and bridge: one Warning Event per workspace on the right Ship, naming the
// workspace and the findings, the report forwarded to the bridge, a ship pod's token refused.
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { KubernetesObject, V1Pod, V1TokenReviewStatus } from '@kubernetes/client-node';
import type { DrainReport } from '../../protocol/index.js';
import type { EventSpec } from '../../operator/reconcile/outcomes.js';
import type { ShipResource } from '../../operator/resources/index.js';
import {
  decideDrainReport,
  DRAIN_REPORT_AUDIENCE,
  drainEvents,
  HOLDER_POD_SELECTOR,
  type DrainFacts,
} from '../../operator/tokens/drain-report.js';
import { SHIP_TOKEN_AUDIENCE } from '../../operator/tokens/exchange-decide.js';
import { DRAIN_REPORT_PATH, matchesSelector, startTokenExchange } from '../../operator/tokens/exchange-server.js';
import type { PlainHttpServer } from '../../server/plain-http-server.js';

const HOLDER_LABELS = { 'app.kubernetes.io/name': 'svc', 'app.kubernetes.io/component': 'session-holder' };
const pod = (
  overrides: { uid?: string; node?: string | null; owner?: string; labels?: Record<string, string> } = {},
): V1Pod => ({
  metadata: {
    name: 'holder-a',
    namespace: 'svc',
    uid: overrides.uid ?? 'uid-a',
    labels: overrides.labels ?? HOLDER_LABELS,
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: overrides.owner ?? 'DaemonSet',
        name: 'svc-sessions',
        uid: 'ds',
        controller: true,
      },
    ],
  },
  spec: { containers: [], nodeName: overrides.node === null ? undefined : (overrides.node ?? 'node-a') },
});
const ship = (name = 'node-a'): ShipResource =>
  ({
    apiVersion: 'svc.dev/v1alpha1',
    kind: 'Ship',
    metadata: { name, namespace: 'svc', uid: `${name}-uid` },
    spec: { url: 'http://10.0.0.1:4700' },
    status: { shipName: name },
  }) as ShipResource;
const facts = (overrides: Partial<DrainFacts> = {}): DrainFacts => ({
  claimed: { namespace: 'svc', pod: 'holder-a', uid: 'uid-a' },
  pod: pod(),
  isHolderPod: (each) => matchesSelector(HOLDER_POD_SELECTOR, each.metadata?.labels),
  namespace: 'svc',
  ship: ship(),
  ...overrides,
});

const REPORT: DrainReport = {
  scanned: 3,
  workspaces: [
    {
      repo: 'app',
      name: 'busy',
      unpushedBranches: [{ branch: 'main', commits: 1 }],
      uncommittedFiles: 1,
      untrackedFiles: 0,
      stashes: 0,
    },
  ],
};

describe('decideDrainReport', () => {
  it('accepts a session holder pod, for the Ship of its own node', () => {
    expect(decideDrainReport(facts())).toMatchObject({
      status: 200,
      node: 'node-a',
      ship: { metadata: { name: 'node-a' } },
    });
  });

  it.each([
    ['another namespace', facts({ claimed: { namespace: 'other', pod: 'holder-a', uid: 'uid-a' } }), 403],
    ['a pod that is gone', facts({ pod: undefined }), 403],
    ['a pod recreated under the same name', facts({ pod: pod({ uid: 'uid-b' }) }), 403],
    [
      'a ship pod',
      facts({ pod: pod({ labels: { 'app.kubernetes.io/name': 'svc', 'app.kubernetes.io/component': 'ship' } }) }),
      403,
    ],
    ['a pod no DaemonSet controls', facts({ pod: pod({ owner: 'ReplicaSet' }) }), 403],
    ['an unscheduled pod', facts({ pod: pod({ node: null }) }), 503],
    ['a node without a Ship', facts({ ship: undefined }), 404],
  ])('refuses %s', (_name, input, status) => {
    expect(decideDrainReport(input)).toMatchObject({ status });
  });
});

describe('drainEvents', () => {
  it('is one Warning UnpushedWork per workspace, naming it and what was found', () => {
    expect(drainEvents('node-a', REPORT)).toEqual([
      {
        type: 'Warning',
        reason: 'UnpushedWork',
        message:
          'node node-a is draining: workspace app/busy has unpushed work: 1 unpushed commit on main, 1 uncommitted file',
      },
    ]);
  });
});

describe('POST /drain-report', () => {
  let server: PlainHttpServer | undefined;
  afterEach(async () => server?.close());

  const start = async () => {
    const events: Array<{ object: string; event: EventSpec }> = [];
    const forwarded: Array<{ name: string; report: DrainReport }> = [];
    const reviews: Record<string, V1TokenReviewStatus> = {
      holder: {
        authenticated: true,
        audiences: [DRAIN_REPORT_AUDIENCE],
        user: {
          username: 'system:serviceaccount:svc:svc-ship',
          extra: {
            'authentication.kubernetes.io/pod-name': ['holder-a'],
            'authentication.kubernetes.io/pod-uid': ['uid-a'],
          },
        },
      },
      ship: {
        authenticated: true,
        audiences: [SHIP_TOKEN_AUDIENCE],
        user: {
          username: 'system:serviceaccount:svc:svc-ship',
          extra: {
            'authentication.kubernetes.io/pod-name': ['holder-a'],
            'authentication.kubernetes.io/pod-uid': ['uid-a'],
          },
        },
      },
    };
    server = await startTokenExchange({
      port: 0,
      host: '127.0.0.1',
      namespace: 'svc',
      shipPodSelector: 'app.kubernetes.io/component=ship',
      log: pino({ level: 'silent' }),
      cluster: {
        // The API server reviews the token for the audiences asked: a ship's token does not review as a holder's.
        reviewToken: async (token, audiences) =>
          reviews[token]?.audiences?.some((each) => audiences.includes(each))
            ? reviews[token]
            : { authenticated: false },
        readPod: async () => pod(),
        readObject: async (_resource, { name }) => (name === 'node-a' ? ship() : undefined) as never,
        readSecret: async () => undefined,
        recordEvent: async (object: KubernetesObject, event: EventSpec) =>
          void events.push({ object: `${object.kind}/${object.metadata?.name}`, event }),
      },
      bridge: { drainReport: async (name, report) => void forwarded.push({ name, report }) },
    });
    const post = (token: string, body: unknown) =>
      fetch(`http://127.0.0.1:${server!.port}${DRAIN_REPORT_PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        redirect: 'error',
      });
    return { events, forwarded, post };
  };

  it("records an Event per workspace on the node's Ship and forwards the report to the bridge", async () => {
    const { events, forwarded, post } = await start();
    const answer = await post('holder', REPORT);
    expect([answer.status, await answer.json()]).toEqual([200, { events: 1, bridge: 'logged' }]);
    expect(events).toEqual([{ object: 'Ship/node-a', event: drainEvents('node-a', REPORT)[0] }]);
    expect(forwarded).toEqual([{ name: 'node-a', report: REPORT }]);
  });

  it("refuses a ship's token, an unknown one, and a body that is not a report", async () => {
    const { events, post } = await start();
    expect((await post('ship', REPORT)).status).toBe(401);
    expect((await post('nobody', REPORT)).status).toBe(401);
    expect((await post('holder', { workspaces: 'all' })).status).toBe(400);
    expect(events).toEqual([]);
  });
});
