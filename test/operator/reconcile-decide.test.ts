// The reconcilers' pure cores as tables (issue #19): decideShip, decideRepo and decideDaemonSet from
// observed facts to the next action, setCondition's transition-time rule, readTokens' both-or-neither rule
// and the merge patch a status write sends. No sockets, no timers.
import { describe, expect, it } from 'vitest';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { FINALIZER, type RepoResource, type ShipResource } from '../../operator/resources/index.js';
import { setCondition } from '../../operator/reconcile/conditions.js';
import { mergePatchOf } from '../../operator/reconcile/cluster.js';
import { claimsAgainst, type Claim } from '../../operator/reconcile/claims.js';
import { decideShip, type ShipFacts } from '../../operator/reconcile/ship-decide.js';
import { decideRepo, type RepoFacts } from '../../operator/reconcile/repo-decide.js';
import { decideDaemonSet, managedShip } from '../../operator/reconcile/daemonset-decide.js';
import { readTokens, tokenFingerprint } from '../../operator/reconcile/tokens.js';
import { registerOutcomeOf } from '../../operator/reconcile/ship.js';
import { isRefusal, RequestFailed, type Refusal } from '../../server/request-failed.js';
import { shipAlreadyRegistered, shipDidNotRespond, shipStreamRefused } from '../../protocol/ship-registration.js';
import { NODE_WITHOUT_SHIP_SINCE } from '../../operator/reconcile/names.js';

const NOW = '2026-01-01T00:00:00Z';
const PAIR = { kind: 'pair' as const, secretName: 's1-tokens', shipToken: 'st', bridgeToken: 'bt' };

function ship(
  overrides: {
    spec?: Partial<ShipResource['spec']>;
    status?: ShipResource['status'];
    finalizers?: string[];
    deleting?: boolean;
    generation?: number;
  } = {},
): ShipResource {
  return {
    apiVersion: 'svc.dev/v1alpha1',
    kind: 'Ship',
    metadata: {
      name: 's1',
      namespace: 'default',
      uid: 'uid-s1',
      generation: overrides.generation ?? 1,
      finalizers: overrides.finalizers ?? [FINALIZER],
      ...(overrides.deleting ? { deletionTimestamp: new Date(NOW) } : {}),
    },
    spec: { url: 'http://10.0.0.1:4700', ...overrides.spec },
    ...(overrides.status ? { status: overrides.status } : {}),
  };
}

function shipFacts(overrides: Partial<ShipFacts> = {}): ShipFacts {
  return {
    ship: ship(),
    now: NOW,
    tokens: PAIR,
    tokensWatched: true,
    claims: new Map(),
    posts: 0,
    removed: [],
    mayProbe: true,
    refreshMs: 30_000,
    bridgeRetryMs: 10_000,
    shipRetryMs: 15_000,
    ...overrides,
  };
}

const online = (name: string, url = 'http://10.0.0.1:4700') => ({ name, url, status: 'online' as const });
const claim = (senior = true): Claim => ({ namespace: 'default', name: 'other', senior });

function finished(action: ReturnType<typeof decideShip>) {
  if (action.kind !== 'finish') throw new Error(`expected finish, got ${JSON.stringify(action)}`);
  const ready = action.status.conditions!.find((c) => c.type === 'Ready')!;
  const registered = action.status.conditions!.find((c) => c.type === 'Registered');
  return {
    ready: `${ready.status}/${ready.reason}`,
    registered: registered && `${registered.status}/${registered.reason}`,
    status: action.status,
    events: action.events.map((e) => e.reason),
    requeue: action.requeueAfterMs,
  };
}

/** The bridge's refusal of POST /ships as the shared client makes it (server/svc-client.ts). */
function refusal(status: number, detail: string): Refusal {
  const error = new RequestFailed(detail, { kind: 'refused', status, detail });
  if (!isRefusal(error)) throw new Error('not a refusal');
  return error;
}

describe('decideShip', () => {
  it('adds the finalizer first, then creates a Generated Secret, then reads the bridge', () => {
    expect(decideShip(shipFacts({ ship: ship({ finalizers: [] }) }))).toEqual({ kind: 'addFinalizer' });
    expect(decideShip(shipFacts({ tokens: { kind: 'absent', secretName: 's1-tokens' } }))).toEqual({
      kind: 'createTokenSecret',
      secretName: 's1-tokens',
    });
    expect(decideShip(shipFacts())).toEqual({ kind: 'readRoster' });
  });

  it('stops before the bridge on unusable tokens (TokensInvalid), keeping the registration as it was', () => {
    const previous = {
      shipName: 'n1',
      registeredURL: 'http://10.0.0.1:4700',
      bridgeStatus: 'online' as const,
      tokenSecretName: 's1-tokens',
    };
    const result = finished(
      decideShip(
        shipFacts({
          ship: ship({ status: previous }),
          tokens: { kind: 'invalid', secretName: 'x', message: 'Secret x holds only one' },
        }),
      ),
    );
    expect(result.ready).toBe('False/TokensInvalid');
    // The registration still holds the pair of s1-tokens: that is the Secret in use until it is replaced.
    expect(result.status).toMatchObject({ ...previous, observedGeneration: 1 });
    expect(
      finished(decideShip(shipFacts({ tokens: { kind: 'invalid', secretName: 'x', message: 'm' } }))).status
        .tokenSecretName,
    ).toBe('x');
    expect(result.events).toEqual(['TokensInvalid']);
    // A Secret the operator watches brings its fix as an event; a user's is re-read at the refresh.
    expect(result.requeue).toBeUndefined();
    expect(
      finished(
        decideShip(shipFacts({ tokens: { kind: 'invalid', secretName: 'x', message: 'm' }, tokensWatched: false })),
      ).requeue,
    ).toBe(30_000);
  });

  it('registers when the bridge has nothing at its URL; a created registration is Registered and follows online/offline', () => {
    expect(decideShip(shipFacts({ roster: [] }))).toEqual({ kind: 'register' });
    const created = finished(
      decideShip(shipFacts({ roster: [], posts: 1, posted: { kind: 'created', info: online('n1') } })),
    );
    expect(created).toMatchObject({
      ready: 'True/Online',
      registered: 'True/Registered',
      events: ['Registered'],
      requeue: 30_000,
    });
    expect(created.status).toMatchObject({
      shipName: 'n1',
      registeredURL: 'http://10.0.0.1:4700',
      bridgeStatus: 'online',
      tokenSecretName: 's1-tokens',
      observedGeneration: 1,
    });
    const held = ship({
      status: { shipName: 'n1', registeredURL: 'http://10.0.0.1:4700', tokenSecretName: 's1-tokens' },
    });
    expect(
      finished(decideShip(shipFacts({ ship: held, roster: [{ ...online('n1'), status: 'offline' }] }))).ready,
    ).toBe('False/Offline');
  });

  it('adopts an unheld registration at its URL (trailing slash ignored), by expectedName when set', () => {
    expect(finished(decideShip(shipFacts({ roster: [online('n1', 'http://10.0.0.1:4700/')] }))).events).toEqual([
      'Adopted',
    ]);
    const expecting = ship({ spec: { expectedName: 'n2' } });
    expect(
      finished(decideShip(shipFacts({ ship: expecting, roster: [online('n1'), online('n2')] }))).status.shipName,
    ).toBe('n2');
    expect(decideShip(shipFacts({ ship: expecting, roster: [online('n1')] }))).toEqual({ kind: 'register' });
  });

  it('never takes a name another Ship holds (NameConflict), whether found at its URL or answered by a 409', () => {
    const atUrl = finished(decideShip(shipFacts({ roster: [online('n1')], claims: new Map([['n1', claim()]]) })));
    expect(atUrl).toMatchObject({ ready: 'False/NameConflict', registered: 'False/NameConflict' });
    expect(atUrl.status.shipName).toBeUndefined();
    expect(
      finished(
        decideShip(
          shipFacts({
            roster: [online('n1', 'http://elsewhere:1')],
            posts: 1,
            posted: { kind: 'taken', name: 'n1' },
            claims: new Map([['n1', claim()]]),
          }),
        ),
      ).ready,
    ).toBe('False/NameConflict');
    // A created registration under a held name is given back at once.
    expect(
      decideShip(
        shipFacts({
          roster: [],
          posts: 1,
          posted: { kind: 'created', info: online('n1') },
          claims: new Map([['n1', claim(false)]]),
        }),
      ),
    ).toMatchObject({ kind: 'deregister', name: 'n1', why: 'conflict' });
    expect(
      finished(
        decideShip(
          shipFacts({
            roster: [],
            posts: 1,
            removed: ['n1'],
            posted: { kind: 'created', info: online('n1') },
            claims: new Map([['n1', claim(false)]]),
          }),
        ),
      ).ready,
    ).toBe('False/NameConflict');
  });

  it('keeps its own name against a junior holder and yields to a senior one', () => {
    const held = ship({
      status: { shipName: 'n1', registeredURL: 'http://10.0.0.1:4700', tokenSecretName: 's1-tokens' },
    });
    expect(
      finished(decideShip(shipFacts({ ship: held, roster: [online('n1')], claims: new Map([['n1', claim(false)]]) })))
        .ready,
    ).toBe('True/Online');
    expect(
      finished(decideShip(shipFacts({ ship: held, roster: [online('n1')], claims: new Map([['n1', claim(true)]]) })))
        .ready,
    ).toBe('False/NameConflict');
  });

  it('tokens from another Secret (or mode) than the registration was made with: deregistered and registered again (TokensChanged)', () => {
    const held = ship({
      status: { shipName: 'n1', registeredURL: 'http://10.0.0.1:4700', tokenSecretName: 'old-creds' },
    });
    expect(decideShip(shipFacts({ ship: held, roster: [online('n1')] }))).toMatchObject({
      kind: 'deregister',
      name: 'n1',
      why: 'tokens',
      event: {
        reason: 'TokensChanged',
        message:
          'ship n1 was registered with the tokens of Secret old-creds; deregistered it to register with Secret s1-tokens',
      },
    });
    expect(decideShip(shipFacts({ ship: held, roster: [online('n1')], removed: ['n1'] }))).toEqual({
      kind: 'register',
    });
    const toNone = decideShip(shipFacts({ ship: held, roster: [online('n1')], tokens: { kind: 'none' } }));
    expect(toNone).toMatchObject({
      kind: 'deregister',
      why: 'tokens',
      event: { message: expect.stringContaining('to register with no tokens') },
    });
    expect(
      finished(
        decideShip(shipFacts({ ship: held, roster: [online('n1')], tokens: { ...PAIR, secretName: 'old-creds' } })),
      ).ready,
    ).toBe('True/Online');
  });

  it('rotation: a Ship asking for one gets a new pair written, and a registration made with another pair is made again', () => {
    const asking = (value: string, status?: ShipResource['status']) => {
      const object = ship({ status });
      object.metadata.annotations = { 'svc.dev/rotate-tokens': value };
      return object;
    };
    expect(decideShip(shipFacts({ ship: asking('r1') }))).toEqual({
      kind: 'rotateTokenSecret',
      secretName: 's1-tokens',
      rotation: 'r1',
    });
    // Already rotated for that request: nothing to do; a Secret mode Ship is never rotated by the operator.
    expect(decideShip(shipFacts({ ship: asking('r1'), tokens: { ...PAIR, rotation: 'r1' } }))).toEqual({
      kind: 'readRoster',
    });
    const user = asking('r1');
    user.spec.auth = { mode: 'Secret', secretRef: { name: 's1-tokens' } };
    expect(decideShip(shipFacts({ ship: user }))).toEqual({ kind: 'readRoster' });
    // The status records the pair's fingerprint (never a token); another pair in the same Secret registers again.
    const registered = finished(
      decideShip(
        shipFacts({
          ship: ship({
            status: { shipName: 'n1', registeredURL: 'http://10.0.0.1:4700', tokenSecretName: 's1-tokens' },
          }),
          roster: [online('n1')],
        }),
      ),
    );
    expect(registered.ready).toBe('True/Online');
    expect(registered.status.tokenFingerprint).toBe(tokenFingerprint(PAIR));
    const fingerprint = tokenFingerprint(PAIR);
    expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(registered)).not.toContain('"bt"');
    const held = ship({
      status: {
        shipName: 'n1',
        registeredURL: 'http://10.0.0.1:4700',
        tokenSecretName: 's1-tokens',
        tokenFingerprint: fingerprint,
      },
    });
    expect(finished(decideShip(shipFacts({ ship: held, roster: [online('n1')] }))).ready).toBe('True/Online');
    const rotated = { ...PAIR, shipToken: 'st2', bridgeToken: 'bt2' };
    expect(decideShip(shipFacts({ ship: held, roster: [online('n1')], tokens: rotated }))).toMatchObject({
      kind: 'deregister',
      name: 'n1',
      why: 'tokens',
      event: { reason: 'TokensChanged' },
    });
    expect(decideShip(shipFacts({ ship: held, roster: [online('n1')], tokens: rotated, removed: ['n1'] }))).toEqual({
      kind: 'register',
    });
  });

  it('a changed URL registers first, then deregisters the old registration and registers again (URLChanged event)', () => {
    const moved = ship({
      spec: { url: 'http://10.0.0.2:4700' },
      status: { shipName: 'n1', registeredURL: 'http://10.0.0.1:4700' },
    });
    const roster = [online('n1', 'http://10.0.0.1:4700')];
    expect(decideShip(shipFacts({ ship: moved, roster }))).toEqual({ kind: 'register' });
    const replace = decideShip(shipFacts({ ship: moved, roster, posts: 1, posted: { kind: 'taken', name: 'n1' } }));
    expect(replace).toMatchObject({ kind: 'deregister', name: 'n1', why: 'replace', event: { reason: 'URLChanged' } });
    expect(
      decideShip(shipFacts({ ship: moved, roster, posts: 1, removed: ['n1'], posted: { kind: 'taken', name: 'n1' } })),
    ).toEqual({ kind: 'register' });
    const done = finished(
      decideShip(
        shipFacts({
          ship: moved,
          roster,
          posts: 2,
          removed: ['n1'],
          posted: { kind: 'created', info: online('n1', 'http://10.0.0.2:4700') },
        }),
      ),
    );
    expect(done.status).toMatchObject({ shipName: 'n1', registeredURL: 'http://10.0.0.2:4700' });
    // The ship at the new URL reports another name: the old registration goes, the new one is kept.
    expect(
      decideShip(
        shipFacts({
          ship: moved,
          roster,
          posts: 1,
          posted: { kind: 'created', info: online('n9', 'http://10.0.0.2:4700') },
        }),
      ),
    ).toMatchObject({ kind: 'deregister', name: 'n1', why: 'superseded' });
    // Unreachable at the new URL: the old registration stays held and is reported.
    const unreachable = finished(
      decideShip(
        shipFacts({
          ship: moved,
          roster,
          posts: 1,
          posted: { kind: 'unreachable', message: 'ship at http://10.0.0.2:4700 did not respond: x' },
        }),
      ),
    );
    expect(unreachable).toMatchObject({ ready: 'False/ShipUnreachable', requeue: 15_000 });
    expect(unreachable.status.registeredURL).toBe('http://10.0.0.1:4700');
  });

  it('a 409 for a name at its own URL adopts; a 502 is ShipUnreachable, or TokensInvalid when the ship answered 401', () => {
    expect(
      finished(decideShip(shipFacts({ roster: [online('n1')], posts: 1, posted: { kind: 'taken', name: 'n1' } })))
        .events,
    ).toEqual(['Adopted']);
    // The bridge's own formats (protocol/ship-registration.ts), as the bridge builds them.
    expect(registerOutcomeOf(refusal(409, shipAlreadyRegistered('n1')))).toEqual({
      kind: 'taken',
      name: 'n1',
    });
    expect(registerOutcomeOf(refusal(502, shipDidNotRespond('http://x', shipStreamRefused(401)))).kind).toBe(
      'tokensRefused',
    );
    expect(registerOutcomeOf(refusal(502, shipDidNotRespond('http://x', shipStreamRefused(404)))).kind).toBe(
      'unreachable',
    );
    expect(registerOutcomeOf(refusal(502, shipDidNotRespond('http://x', 'connect ECONNREFUSED'))).kind).toBe(
      'unreachable',
    );
    expect(registerOutcomeOf(refusal(409, 'ship "n1" has workspaces already hosted elsewhere: r/w'))).toMatchObject({
      kind: 'refused',
      status: 409,
    });
    expect(registerOutcomeOf(refusal(409, 'ship "n1" has workspaces already hosted elsewhere: r/a')).kind).toBe(
      'refused',
    );
    expect(
      finished(decideShip(shipFacts({ roster: [], posts: 1, posted: { kind: 'tokensRefused', message: 'x' } }))).ready,
    ).toBe('False/TokensInvalid');
  });

  it('expectedName: a different reported name is deregistered and reported as NameMismatch, then not probed again until allowed', () => {
    const expecting = ship({ spec: { expectedName: 'n2' } });
    expect(
      decideShip(shipFacts({ ship: expecting, roster: [], posts: 1, posted: { kind: 'created', info: online('n1') } })),
    ).toMatchObject({ kind: 'deregister', name: 'n1', why: 'mismatch' });
    const mismatch = finished(
      decideShip(
        shipFacts({
          ship: expecting,
          roster: [],
          posts: 1,
          removed: ['n1'],
          posted: { kind: 'created', info: online('n1') },
        }),
      ),
    );
    expect(mismatch).toMatchObject({ ready: 'False/NameMismatch', registered: 'False/NameMismatch' });
    expect(mismatch.status.shipName).toBeUndefined();
    const after = ship({ spec: { expectedName: 'n2' }, status: mismatch.status });
    const kept = finished(decideShip(shipFacts({ ship: after, roster: [], mayProbe: false })));
    expect(kept).toMatchObject({ ready: 'False/NameMismatch', events: [] });
    expect(kept.status.conditions).toEqual(mismatch.status.conditions);
    // A registration held under the old expectation is given up when expectedName changes.
    const held = ship({
      spec: { expectedName: 'n2' },
      status: { shipName: 'n1', registeredURL: 'http://10.0.0.1:4700' },
    });
    expect(decideShip(shipFacts({ ship: held, roster: [online('n1')] }))).toMatchObject({
      kind: 'deregister',
      name: 'n1',
      why: 'mismatch',
    });
  });

  it('bridge trouble: Ready=False BridgeUnavailable/BridgeUnauthorized, registration and Registered kept, retried sooner', () => {
    const held = ship({
      status: {
        shipName: 'n1',
        registeredURL: 'http://10.0.0.1:4700',
        bridgeStatus: 'online',
        conditions: [
          {
            type: 'Registered',
            status: 'True',
            reason: 'Registered',
            message: 'm',
            lastTransitionTime: '2025-01-01T00:00:00Z',
          },
        ],
      },
    });
    const down = finished(
      decideShip(
        shipFacts({
          ship: held,
          bridgeTrouble: { kind: 'unavailable', message: 'cannot reach the bridge at http://b (ECONNREFUSED)' },
        }),
      ),
    );
    expect(down).toMatchObject({ ready: 'False/BridgeUnavailable', registered: 'True/Registered', requeue: 10_000 });
    expect(down.status).toMatchObject({ shipName: 'n1', bridgeStatus: 'online' });
    expect(finished(decideShip(shipFacts({ bridgeTrouble: { kind: 'unauthorized', message: 'x' } }))).ready).toBe(
      'False/BridgeUnauthorized',
    );
  });

  it('deletion: Deregister deletes the held name then drops the finalizer; Orphan drops it at once; a down bridge keeps it with a message', () => {
    const held = (policy: 'Deregister' | 'Orphan') =>
      ship({
        deleting: true,
        spec: { deletionPolicy: policy },
        status: { shipName: 'n1', registeredURL: 'http://10.0.0.1:4700' },
      });
    expect(decideShip(shipFacts({ ship: held('Deregister') }))).toEqual({
      kind: 'deregister',
      name: 'n1',
      why: 'delete',
    });
    expect(decideShip(shipFacts({ ship: held('Deregister'), removed: ['n1'] }))).toMatchObject({
      kind: 'removeFinalizer',
      event: { reason: 'Deregistered' },
    });
    expect(decideShip(shipFacts({ ship: held('Orphan') }))).toEqual({ kind: 'removeFinalizer' });
    const waiting = finished(
      decideShip(
        shipFacts({ ship: held('Deregister'), bridgeTrouble: { kind: 'unavailable', message: 'cannot reach' } }),
      ),
    );
    expect(waiting.ready).toBe('False/BridgeUnavailable');
    expect(waiting.status.conditions!.find((c) => c.type === 'Ready')!.message).toMatch(
      /^deletion waits for the bridge/,
    );
    expect(decideShip(shipFacts({ ship: ship({ deleting: true, finalizers: [] }) }))).toEqual({ kind: 'done' });
    // Nothing recorded: a registration at its URL that nobody holds (the operator stopped after POST) is removed.
    const unrecorded = ship({ deleting: true });
    expect(decideShip(shipFacts({ ship: unrecorded }))).toEqual({ kind: 'readRoster' });
    expect(decideShip(shipFacts({ ship: unrecorded, roster: [online('n1')] }))).toEqual({
      kind: 'deregister',
      name: 'n1',
      why: 'delete',
    });
    expect(
      decideShip(shipFacts({ ship: unrecorded, roster: [online('n1')], claims: new Map([['n1', claim()]]) })),
    ).toEqual({ kind: 'removeFinalizer' });
  });
});

describe('setCondition', () => {
  it('moves lastTransitionTime only when the status changes', () => {
    const first = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'Offline', message: 'a' }, 1, 'T1');
    const sameStatus = setCondition(
      first,
      { type: 'Ready', status: 'False', reason: 'ShipUnreachable', message: 'b' },
      2,
      'T2',
    );
    expect(sameStatus).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'ShipUnreachable',
        message: 'b',
        lastTransitionTime: 'T1',
        observedGeneration: 2,
      },
    ]);
    const flipped = setCondition(
      sameStatus,
      { type: 'Ready', status: 'True', reason: 'Online', message: 'c' },
      2,
      'T3',
    );
    expect(flipped[0]!.lastTransitionTime).toBe('T3');
    expect(
      setCondition(flipped, { type: 'Registered', status: 'True', reason: 'Registered', message: 'd' }, 2, 'T4').map(
        (c) => c.type,
      ),
    ).toEqual(['Ready', 'Registered']);
  });
});

describe('readTokens', () => {
  const secret = (data: Record<string, string>) => ({
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  });
  const withMode = (mode: 'Generated' | 'Secret' | 'None') =>
    ship({ spec: { auth: mode === 'Secret' ? { mode, secretRef: { name: 'mine' } } : { mode } } });
  it('both keys or neither; Generated never fills in a Secret it did not write', () => {
    expect(readTokens(withMode('None'), undefined)).toEqual({ kind: 'none' });
    expect(readTokens(withMode('Generated'), undefined)).toEqual({ kind: 'absent', secretName: 's1-tokens' });
    expect(readTokens(withMode('Secret'), undefined)).toMatchObject({
      kind: 'invalid',
      message: 'Secret mine not found',
    });
    expect(readTokens(withMode('Secret'), secret({ shipToken: 'a', bridgeToken: 'b' }))).toEqual({
      kind: 'pair',
      secretName: 'mine',
      shipToken: 'a',
      bridgeToken: 'b',
    });
    expect(readTokens(withMode('Secret'), secret({}))).toEqual({ kind: 'none', secretName: 'mine' });
    expect(readTokens(withMode('Secret'), secret({ shipToken: 'a', bridgeToken: '' }))).toMatchObject({
      kind: 'invalid',
    });
    expect(readTokens(withMode('Secret'), secret({ bridgeToken: 'b' }))).toMatchObject({ kind: 'invalid' });
    expect(readTokens(withMode('Generated'), secret({}))).toMatchObject({ kind: 'invalid' });
    const owned = (uid: string) => ({
      ...secret({ shipToken: 'a', bridgeToken: 'b' }),
      metadata: { ownerReferences: [{ apiVersion: 'svc.dev/v1alpha1', kind: 'Ship', name: 's1', uid }] },
    });
    expect(readTokens(withMode('Generated'), owned('uid-s1'))).toMatchObject({ kind: 'pair' });
    expect(readTokens(withMode('Generated'), owned('uid-old'))).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('belongs to an earlier Ship of this name'),
    });
    const result = readTokens(withMode('Secret'), secret({ shipToken: 'a', bridgeToken: 'TOKEN-XYZ' }));
    expect(JSON.stringify(readTokens(withMode('Secret'), secret({ bridgeToken: 'TOKEN-XYZ' })))).not.toContain(
      'TOKEN-XYZ',
    );
    expect(result.kind).toBe('pair');
  });
});

describe('claims', () => {
  it('marks the older holder senior; ties go by namespace/name; self is skipped', () => {
    const at = (name: string, created: string, shipName?: string) => ({
      metadata: { name, namespace: 'default', uid: name, creationTimestamp: created as unknown as Date },
      status: { shipName },
    });
    const self = at('b', '2026-01-02T00:00:00Z');
    const claims = claimsAgainst(
      self,
      [
        self,
        at('a', '2026-01-01T00:00:00Z', 'n1'),
        at('c', '2026-01-03T00:00:00Z', 'n2'),
        at('a2', '2026-01-02T00:00:00Z', 'n3'),
      ],
      (o) => o.status.shipName,
    );
    expect(Object.fromEntries([...claims].map(([k, v]) => [k, v.senior]))).toEqual({ n1: true, n2: false, n3: true });
  });
});

describe('mergePatchOf', () => {
  it('sends only what changed, with null for what went away, and nothing when equal', () => {
    expect(mergePatchOf({ a: 1, b: [1] }, { a: 1, b: [1] })).toBeUndefined();
    expect(mergePatchOf({ a: 1, shipName: 'x' }, { a: 2 })).toEqual({ a: 2, shipName: null });
  });
});

function repo(
  overrides: {
    spec?: Partial<RepoResource['spec']>;
    status?: RepoResource['status'];
    deleting?: boolean;
    finalizers?: string[];
  } = {},
): RepoResource {
  return {
    apiVersion: 'svc.dev/v1alpha1',
    kind: 'Repo',
    metadata: {
      name: 'app',
      namespace: 'default',
      uid: 'uid-app',
      generation: 1,
      finalizers: overrides.finalizers ?? [FINALIZER],
      ...(overrides.deleting ? { deletionTimestamp: new Date(NOW) } : {}),
    },
    spec: { url: 'https://example.com/app.git', ...overrides.spec },
    ...(overrides.status ? { status: overrides.status } : {}),
  };
}
const repoFacts = (overrides: Partial<RepoFacts> = {}): RepoFacts => ({
  repo: repo(),
  now: NOW,
  claims: new Map(),
  posts: 0,
  removed: [],
  refreshMs: 30_000,
  bridgeRetryMs: 10_000,
  ...overrides,
});

describe('decideRepo', () => {
  it('registers under spec.name (else metadata.name), adopts an equal one, replaces a different one, defers to a holder', () => {
    expect(decideRepo(repoFacts({ repo: repo({ finalizers: [] }) }))).toEqual({ kind: 'addFinalizer' });
    expect(decideRepo(repoFacts())).toEqual({ kind: 'readRoster' });
    expect(decideRepo(repoFacts({ repo: repo({ spec: { name: 'App_1' } }), roster: [] }))).toEqual({
      kind: 'register',
      request: { name: 'App_1', url: 'https://example.com/app.git', provider: 'custom' },
    });
    const adopted = decideRepo(
      repoFacts({ roster: [{ name: 'app', url: 'https://example.com/app.git', provider: 'custom' }] }),
    );
    expect(adopted).toMatchObject({
      kind: 'finish',
      events: [{ reason: 'Adopted' }],
      status: { repoName: 'app', provider: 'custom', registeredURL: 'https://example.com/app.git' },
    });
    expect(
      decideRepo(repoFacts({ roster: [{ name: 'app', url: 'https://example.com/old.git', provider: 'custom' }] })),
    ).toMatchObject({ kind: 'deregister', name: 'app', why: 'replace', event: { reason: 'Replaced' } });
    expect(decideRepo(repoFacts({ roster: [], claims: new Map([['app', claim(false)]]) }))).toMatchObject({
      kind: 'finish',
      status: {
        conditions: [
          { type: 'Registered', reason: 'NameConflict' },
          { type: 'Ready', reason: 'NameConflict' },
        ],
      },
    });
    expect(
      decideRepo(
        repoFacts({ roster: [], posts: 1, posted: { kind: 'refused', status: 400, message: 'invalid repo: x' } }),
      ),
    ).toMatchObject({
      kind: 'finish',
      status: { conditions: [{ reason: 'RegistrationRefused' }, { reason: 'RegistrationRefused' }] },
    });
  });

  it("a URL's credentials reach neither status, conditions nor Events", () => {
    const url = 'https://bot:ghp_secret@github.example/acme/app.git';
    const cases = [
      decideRepo(repoFacts({ repo: repo({ spec: { url } }), roster: [{ name: 'app', url, provider: 'custom' }] })),
      decideRepo(
        repoFacts({
          repo: repo({ spec: { url } }),
          roster: [],
          posts: 1,
          posted: { kind: 'created', repo: { name: 'app', url, provider: 'custom' } },
        }),
      ),
      decideRepo(
        repoFacts({
          repo: repo({ spec: { url } }),
          roster: [{ name: 'app', url: 'https://old:tok_old@github.example/acme/old.git', provider: 'custom' }],
        }),
      ),
    ];
    expect(cases.map((action) => action.kind)).toEqual(['finish', 'finish', 'deregister']);
    expect(cases[0]).toMatchObject({ status: { registeredURL: 'https://***@github.example/acme/app.git' } });
    for (const action of cases) {
      expect(JSON.stringify(action)).not.toContain('ghp_secret');
      expect(JSON.stringify(action)).not.toContain('tok_old');
    }
  });

  it('deletion per policy; a never-held registration is removed only when equal to the spec', () => {
    const held = repo({ deleting: true, status: { repoName: 'app' } });
    expect(decideRepo(repoFacts({ repo: held }))).toEqual({ kind: 'deregister', name: 'app', why: 'delete' });
    expect(decideRepo(repoFacts({ repo: held, removed: ['app'] }))).toMatchObject({
      kind: 'removeFinalizer',
      event: { reason: 'Deregistered' },
    });
    expect(
      decideRepo(
        repoFacts({ repo: repo({ deleting: true, spec: { deletionPolicy: 'Orphan' }, status: { repoName: 'app' } }) }),
      ),
    ).toEqual({ kind: 'removeFinalizer' });
    expect(
      decideRepo(
        repoFacts({
          repo: repo({ deleting: true }),
          roster: [{ name: 'app', url: 'https://other/x.git', provider: 'custom' }],
        }),
      ),
    ).toEqual({ kind: 'removeFinalizer' });
    expect(decideRepo(repoFacts({ repo: held, bridgeTrouble: { kind: 'unavailable', message: 'x' } }))).toMatchObject({
      kind: 'finish',
      status: { conditions: [{ reason: 'BridgeUnavailable' }] },
    });
  });
});

describe('decideDaemonSet', () => {
  const ds: V1DaemonSet = { metadata: { name: 'svc-ship', namespace: 'default', uid: 'ds-uid' } };
  const pod = (name: string, node: string, ip: string, ready = true): V1Pod => ({
    metadata: {
      name,
      namespace: 'default',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'svc-ship', uid: 'ds-uid' }],
    },
    spec: { nodeName: node, containers: [] },
    status: { phase: 'Running', hostIP: ip, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  });
  const base = { daemonSet: ds, now: Date.parse(NOW), graceMs: 600_000 };
  const managed = (node: string, ip: string, since?: string) => {
    const object = managedShip(ds, node, ip) as ShipResource & { metadata: { uid: string } };
    object.metadata.uid = `uid-${node}`;
    if (since) object.metadata.annotations = { [NODE_WITHOUT_SHIP_SINCE]: since };
    return object as ShipResource & { apiVersion: string; kind: string };
  };

  it('creates one Ship per node with a ready ship pod, named after the node, with a Generated pair of its own', () => {
    const plan = decideDaemonSet({
      ...base,
      pods: [pod('p1', 'node-a', '10.0.0.1'), pod('p2', 'node-b', '10.0.0.2', false), pod('p3', 'node-c', 'fd00::3')],
      ships: [],
    });
    expect(plan.create.map((s) => [s.metadata.name, s.spec.url])).toEqual([
      ['node-a', 'http://10.0.0.1:4700'],
      ['node-c', 'http://[fd00::3]:4700'],
    ]);
    expect(plan.create[0]).toMatchObject({
      metadata: {
        labels: { 'svc.dev/managed-by': 'daemonset' },
        ownerReferences: [{ kind: 'DaemonSet', uid: 'ds-uid', controller: true }],
      },
      spec: { expectedName: 'node-a', auth: { mode: 'Generated' } },
    });
    // A Ship made when every node shared one Secret moves to a pair of its own.
    const shared = managed('node-a', '10.0.0.1');
    shared.spec.auth = { mode: 'Secret', secretRef: { name: 'svc-ship-tokens' } };
    expect(decideDaemonSet({ ...base, pods: [pod('p1', 'node-a', '10.0.0.1')], ships: [shared] }).update).toEqual([
      { name: 'node-a', spec: expect.objectContaining({ auth: { mode: 'Generated' } }) },
    ]);
  });

  it('never touches a user Ship; follows a new host IP; keeps a Ship through the grace period and removes it after', () => {
    const user = {
      apiVersion: 'svc.dev/v1alpha1',
      kind: 'Ship',
      metadata: { name: 'node-a', namespace: 'default' },
      spec: { url: 'http://x:1' },
    } as ShipResource & { apiVersion: string; kind: string };
    const plan = decideDaemonSet({ ...base, pods: [pod('p1', 'node-a', '10.0.0.1')], ships: [user] });
    expect(plan).toMatchObject({ create: [], update: [], remove: [], skipped: [{ node: 'node-a' }] });
    expect(
      decideDaemonSet({ ...base, pods: [pod('p1', 'node-a', '10.0.0.9')], ships: [managed('node-a', '10.0.0.1')] })
        .update,
    ).toEqual([{ name: 'node-a', spec: expect.objectContaining({ url: 'http://10.0.0.9:4700' }) }]);
    const gone = decideDaemonSet({ ...base, pods: [], ships: [managed('node-a', '10.0.0.1')] });
    expect(gone).toMatchObject({
      annotate: [{ name: 'node-a', since: '2026-01-01T00:00:00.000Z' }],
      remove: [],
      requeueAfterMs: 600_000,
    });
    const halfway = decideDaemonSet({
      ...base,
      now: base.now + 300_000,
      pods: [],
      ships: [managed('node-a', '10.0.0.1', NOW)],
    });
    expect(halfway).toMatchObject({ remove: [], requeueAfterMs: 300_000 });
    expect(
      decideDaemonSet({ ...base, now: base.now + 600_000, pods: [], ships: [managed('node-a', '10.0.0.1', NOW)] })
        .remove,
    ).toEqual([{ name: 'node-a', uid: 'uid-node-a' }]);
    expect(
      decideDaemonSet({ ...base, pods: [pod('p1', 'node-a', '10.0.0.1')], ships: [managed('node-a', '10.0.0.1', NOW)] })
        .annotate,
    ).toEqual([{ name: 'node-a', since: null }]);
  });

  describe('the address a Ship is registered at (svc.dev/ship-address on the DaemonSet)', () => {
    const withAddress = (value: string): V1DaemonSet => ({
      metadata: { ...ds.metadata, annotations: { 'svc.dev/ship-address': value } },
    });
    const podWithIP = (name: string, node: string, hostIP: string, podIP: string, ready = true): V1Pod => {
      const made = pod(name, node, hostIP, ready);
      made.status!.podIP = podIP;
      return made;
    };
    const cases: { title: string; daemonSet: V1DaemonSet; urls: [string, string][] }[] = [
      {
        title: 'absent: the node IP (hostPort or hostNetwork)',
        daemonSet: ds,
        urls: [
          ['node-a', 'http://10.0.0.1:4700'],
          ['node-c', 'http://[fd00::3]:4700'],
        ],
      },
      {
        title: 'nodeIP: the node IP',
        daemonSet: withAddress('nodeIP'),
        urls: [
          ['node-a', 'http://10.0.0.1:4700'],
          ['node-c', 'http://[fd00::3]:4700'],
        ],
      },
      {
        title: "podIP: the pod's own IP, no hostPort needed",
        daemonSet: withAddress('podIP'),
        urls: [
          ['node-a', 'http://10.244.1.7:4700'],
          ['node-c', 'http://[fd00:10:244::9]:4700'],
        ],
      },
    ];
    const pods = [
      podWithIP('p1', 'node-a', '10.0.0.1', '10.244.1.7'),
      podWithIP('p2', 'node-b', '10.0.0.2', '10.244.2.7', false),
      podWithIP('p3', 'node-c', 'fd00::3', 'fd00:10:244::9'),
    ];
    it.each(cases)('$title', ({ daemonSet, urls }) => {
      expect(
        decideDaemonSet({ ...base, daemonSet, pods, ships: [] }).create.map((s) => [s.metadata.name, s.spec.url]),
      ).toEqual(urls);
    });

    it('podIP: a ready pod without a pod IP yet gets no Ship; a pod replaced with a new IP moves its Ship', () => {
      const podIP = withAddress('podIP');
      expect(
        decideDaemonSet({ ...base, daemonSet: podIP, pods: [pod('p1', 'node-a', '10.0.0.1')], ships: [] }).create,
      ).toEqual([]);
      const current = managedShip(podIP, 'node-a', '10.244.1.7') as ShipResource & { apiVersion: string; kind: string };
      const plan = decideDaemonSet({
        ...base,
        daemonSet: podIP,
        pods: [podWithIP('p9', 'node-a', '10.0.0.1', '10.244.1.8')],
        ships: [current],
      });
      expect(plan.update).toEqual([
        { name: 'node-a', spec: expect.objectContaining({ url: 'http://10.244.1.8:4700' }) },
      ]);
    });

    it('an unknown value changes nothing and says why', () => {
      const current = managed('node-a', '10.0.0.1');
      const plan = decideDaemonSet({ ...base, daemonSet: withAddress('hostname'), pods, ships: [current] });
      expect(plan).toMatchObject({ create: [], update: [], annotate: [], remove: [] });
      expect(plan.skipped).toEqual([
        {
          node: '*',
          reason:
            'the DaemonSet\'s svc.dev/ship-address annotation is "hostname", not one of nodeIP, podIP: no Ship created, changed or removed',
        },
      ]);
    });
  });
});
