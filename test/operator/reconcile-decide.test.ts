// The reconcilers' pure cores as tables (issue #19): decideShip, decideRepo and decideDaemonSet from
// observed facts to the next action, setCondition's transition-time rule, readTokens' both-or-neither rule
// and the merge patch a status write sends. No sockets, no timers. Each row is a named case, {name, facts,
// expected}, run with it.each (docs/DECISIONS.md, "Decide tests as tables"); what a row cannot say (a status
// carried from one decision into the next, a token never printed) is an it of its own.
import { describe, expect, it } from 'vitest';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { FINALIZER, type RepoResource, type ShipResource } from '../../operator/resources/index.js';
import { setCondition } from '../../operator/reconcile/conditions.js';
import { mergePatchOf } from '../../operator/reconcile/cluster.js';
import { claimsAgainst, type Claim } from '../../operator/reconcile/claims.js';
import {
  decideShip,
  type ShipAction,
  type ShipFacts,
  type ShipRegisterOutcome,
} from '../../operator/reconcile/ship-decide.js';
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

/** An action as a table compares it: a finish summarised (conditions as status/reason, events by reason). */
function summary(action: ShipAction) {
  if (action.kind !== 'finish') return action;
  const { ready, registered, status, events, requeue } = finished(action);
  return {
    kind: 'finish',
    ready,
    readyMessage: action.status.conditions!.find((c) => c.type === 'Ready')!.message,
    registered,
    status,
    shipName: status.shipName,
    events,
    requeue,
  };
}

/** A registration this Ship holds, made with `tokenSecretName`'s pair (and that fingerprint, when given). */
const heldAt = (extra: Partial<NonNullable<ShipResource['status']>> = {}, spec?: Partial<ShipResource['spec']>) =>
  ship({
    spec,
    status: { shipName: 'n1', registeredURL: 'http://10.0.0.1:4700', tokenSecretName: 's1-tokens', ...extra },
  });
/** A Ship whose svc.dev/rotate-tokens annotation asks for rotation `value`. */
const asking = (value: string, auth?: ShipResource['spec']['auth']) => {
  const object = ship(auth ? { spec: { auth } } : {});
  object.metadata.annotations = { 'svc.dev/rotate-tokens': value };
  return object;
};
const INVALID = { kind: 'invalid' as const, secretName: 'x', message: 'Secret x holds only one' };
const PREVIOUS = {
  shipName: 'n1',
  registeredURL: 'http://10.0.0.1:4700',
  bridgeStatus: 'online' as const,
  tokenSecretName: 's1-tokens',
};
const ROTATED = { ...PAIR, shipToken: 'st2', bridgeToken: 'bt2' };
const FINGERPRINTED = heldAt({ tokenFingerprint: tokenFingerprint(PAIR) });
const MOVED = ship({
  spec: { url: 'http://10.0.0.2:4700' },
  status: { shipName: 'n1', registeredURL: 'http://10.0.0.1:4700' },
});
const OLD_URL = [online('n1', 'http://10.0.0.1:4700')];
const EXPECTING = ship({ spec: { expectedName: 'n2' } });
const REGISTERED_SINCE_2025 = ship({
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
const deleting = (policy: 'Deregister' | 'Orphan') =>
  ship({
    deleting: true,
    spec: { deletionPolicy: policy },
    status: { shipName: 'n1', registeredURL: 'http://10.0.0.1:4700' },
  });
const senior = (name = 'n1') => new Map([[name, claim(true)]]);
const junior = (name = 'n1') => new Map([[name, claim(false)]]);

/** Facts whose next action is a step (not a finish): compared whole. */
const steps: { name: string; facts: Partial<ShipFacts>; step: ShipAction }[] = [
  // Order: finalizer, tokens, bridge.
  { name: 'no finalizer: adds it first', facts: { ship: ship({ finalizers: [] }) }, step: { kind: 'addFinalizer' } },
  {
    name: 'no Generated Secret yet: creates it before any bridge call',
    facts: { tokens: { kind: 'absent', secretName: 's1-tokens' } },
    step: { kind: 'createTokenSecret', secretName: 's1-tokens' },
  },
  { name: 'usable tokens and no roster yet: reads the bridge', facts: {}, step: { kind: 'readRoster' } },
  // Registration.
  { name: 'nothing at its URL: registers', facts: { roster: [] }, step: { kind: 'register' } },
  {
    name: 'expectedName not in the roster: registers, adopting nothing else at its URL',
    facts: { ship: EXPECTING, roster: [online('n1')] },
    step: { kind: 'register' },
  },
  {
    name: 'created under a name a junior Ship holds: given back at once',
    facts: { roster: [], posts: 1, posted: { kind: 'created', info: online('n1') }, claims: junior() },
    step: { kind: 'deregister', name: 'n1', why: 'conflict' },
  },
  // Tokens changed under a held registration.
  {
    name: "held with another Secret's tokens: deregistered to register again (TokensChanged)",
    facts: { ship: heldAt({ tokenSecretName: 'old-creds' }), roster: [online('n1')] },
    step: {
      kind: 'deregister',
      name: 'n1',
      why: 'tokens',
      event: {
        type: 'Normal',
        reason: 'TokensChanged',
        message:
          'ship n1 was registered with the tokens of Secret old-creds; deregistered it to register with Secret s1-tokens',
      },
    },
  },
  {
    name: "held with another Secret's tokens, deregistered: registers again",
    facts: { ship: heldAt({ tokenSecretName: 'old-creds' }), roster: [online('n1')], removed: ['n1'] },
    step: { kind: 'register' },
  },
  {
    name: 'held with a Secret, now mode None: deregistered to register with no tokens',
    facts: { ship: heldAt({ tokenSecretName: 'old-creds' }), roster: [online('n1')], tokens: { kind: 'none' } },
    step: {
      kind: 'deregister',
      name: 'n1',
      why: 'tokens',
      event: expect.objectContaining({ message: expect.stringContaining('to register with no tokens') }),
    },
  },
  // Rotation.
  {
    name: 'a rotation request: a new pair written into the Generated Secret',
    facts: { ship: asking('r1') },
    step: { kind: 'rotateTokenSecret', secretName: 's1-tokens', rotation: 'r1' },
  },
  {
    name: 'a rotation already made for that request: nothing to rotate',
    facts: { ship: asking('r1'), tokens: { ...PAIR, rotation: 'r1' } },
    step: { kind: 'readRoster' },
  },
  {
    name: 'a Secret mode Ship asking for rotation: never rotated by the operator',
    facts: { ship: asking('r1', { mode: 'Secret', secretRef: { name: 's1-tokens' } }) },
    step: { kind: 'readRoster' },
  },
  {
    name: 'the same Secret holds another pair than the registration was made with: deregistered (TokensChanged)',
    facts: { ship: FINGERPRINTED, roster: [online('n1')], tokens: ROTATED },
    step: {
      kind: 'deregister',
      name: 'n1',
      why: 'tokens',
      event: expect.objectContaining({ reason: 'TokensChanged' }),
    },
  },
  {
    name: 'another pair, the old registration deregistered: registers with the new one',
    facts: { ship: FINGERPRINTED, roster: [online('n1')], tokens: ROTATED, removed: ['n1'] },
    step: { kind: 'register' },
  },
  // A changed URL: POST first.
  {
    name: 'a changed URL: registers the new one first',
    facts: { ship: MOVED, roster: OLD_URL },
    step: { kind: 'register' },
  },
  {
    name: 'a changed URL answered 409 for its own name: the old registration is replaced (URLChanged)',
    facts: { ship: MOVED, roster: OLD_URL, posts: 1, posted: { kind: 'taken', name: 'n1' } },
    step: { kind: 'deregister', name: 'n1', why: 'replace', event: expect.objectContaining({ reason: 'URLChanged' }) },
  },
  {
    name: 'a changed URL, the old registration removed: registers again',
    facts: { ship: MOVED, roster: OLD_URL, posts: 1, removed: ['n1'], posted: { kind: 'taken', name: 'n1' } },
    step: { kind: 'register' },
  },
  {
    name: 'the ship at the new URL reports another name: the old registration goes',
    facts: {
      ship: MOVED,
      roster: OLD_URL,
      posts: 1,
      posted: { kind: 'created', info: online('n9', 'http://10.0.0.2:4700') },
    },
    step: {
      kind: 'deregister',
      name: 'n1',
      why: 'superseded',
      event: expect.objectContaining({ reason: 'Deregistered' }),
    },
  },
  // expectedName.
  {
    name: 'created under another name than expectedName: deregistered',
    facts: { ship: EXPECTING, roster: [], posts: 1, posted: { kind: 'created', info: online('n1') } },
    step: { kind: 'deregister', name: 'n1', why: 'mismatch' },
  },
  {
    name: 'held under another name than a new expectedName: given up',
    facts: { ship: heldAt({ tokenSecretName: undefined }, { expectedName: 'n2' }), roster: [online('n1')] },
    step: { kind: 'deregister', name: 'n1', why: 'mismatch' },
  },
  // Deletion.
  {
    name: 'deleting (Deregister): deletes the held name',
    facts: { ship: deleting('Deregister') },
    step: { kind: 'deregister', name: 'n1', why: 'delete' },
  },
  {
    name: 'deleting (Deregister), the name removed: drops the finalizer with an Event',
    facts: { ship: deleting('Deregister'), removed: ['n1'] },
    step: { kind: 'removeFinalizer', event: expect.objectContaining({ reason: 'Deregistered' }) },
  },
  {
    name: 'deleting (Orphan): drops the finalizer at once',
    facts: { ship: deleting('Orphan') },
    step: { kind: 'removeFinalizer' },
  },
  {
    name: 'deleted and the finalizer gone: done',
    facts: { ship: ship({ deleting: true, finalizers: [] }) },
    step: { kind: 'done' },
  },
  {
    name: 'deleting with nothing recorded: reads the roster (the operator may have stopped after POST)',
    facts: { ship: ship({ deleting: true }) },
    step: { kind: 'readRoster' },
  },
  {
    name: 'deleting with nothing recorded, a registration at its URL nobody holds: removed',
    facts: { ship: ship({ deleting: true }), roster: [online('n1')] },
    step: { kind: 'deregister', name: 'n1', why: 'delete' },
  },
  {
    name: 'deleting with nothing recorded, the registration at its URL held by another Ship: only lets go',
    facts: { ship: ship({ deleting: true }), roster: [online('n1')], claims: senior() },
    step: { kind: 'removeFinalizer' },
  },
];

/** Facts whose next action is a finish: its summary matched against `finish`. */
const finishes: { name: string; facts: Partial<ShipFacts>; finish: Partial<ReturnType<typeof summary>> }[] = [
  // Unusable tokens stop before the bridge.
  {
    name: 'unusable tokens: TokensInvalid, the registration kept as it was, no timed re-check of a watched Secret',
    facts: { ship: ship({ status: PREVIOUS }), tokens: INVALID },
    // The registration still holds the pair of s1-tokens: that is the Secret in use until it is replaced.
    finish: {
      ready: 'False/TokensInvalid',
      status: { ...PREVIOUS, observedGeneration: 1 },
      events: ['TokensInvalid'],
      requeue: undefined,
    },
  },
  {
    name: 'unusable tokens and no registration held: the status names the Secret read',
    facts: { tokens: { ...INVALID, message: 'm' } },
    finish: { ready: 'False/TokensInvalid', status: expect.objectContaining({ tokenSecretName: 'x' }) },
  },
  {
    name: "unusable tokens in a user's Secret (not watched): read again at the refresh",
    facts: { tokens: { ...INVALID, message: 'm' }, tokensWatched: false },
    finish: { ready: 'False/TokensInvalid', requeue: 30_000 },
  },
  // Registered, and Ready following the bridge.
  {
    name: 'created: Registered, Ready follows online, the registration and its Secret recorded',
    facts: { roster: [], posts: 1, posted: { kind: 'created', info: online('n1') } },
    finish: {
      ready: 'True/Online',
      registered: 'True/Registered',
      events: ['Registered'],
      requeue: 30_000,
      status: expect.objectContaining({
        shipName: 'n1',
        registeredURL: 'http://10.0.0.1:4700',
        bridgeStatus: 'online',
        tokenSecretName: 's1-tokens',
        observedGeneration: 1,
      }),
    },
  },
  {
    name: 'held and the bridge reports it offline: Ready=False Offline',
    facts: { ship: heldAt(), roster: [{ ...online('n1'), status: 'offline' }] },
    finish: { ready: 'False/Offline', registered: 'True/Registered' },
  },
  // Adoption.
  {
    name: 'an unheld registration at its URL (trailing slash ignored): adopted',
    facts: { roster: [online('n1', 'http://10.0.0.1:4700/')] },
    finish: { ready: 'True/Online', events: ['Adopted'], shipName: 'n1' },
  },
  {
    name: 'with expectedName: the registration of that name adopted, not another at its URL',
    facts: { ship: EXPECTING, roster: [online('n1'), online('n2')] },
    finish: { ready: 'True/Online', events: ['Adopted'], shipName: 'n2' },
  },
  {
    name: 'a 409 for a name at its own URL: adopted',
    facts: { roster: [online('n1')], posts: 1, posted: { kind: 'taken', name: 'n1' } },
    finish: { ready: 'True/Online', events: ['Adopted'] },
  },
  // Names other Ships hold.
  {
    name: 'a name another Ship holds, found at its URL: NameConflict, nothing held',
    facts: { roster: [online('n1')], claims: senior() },
    finish: { ready: 'False/NameConflict', registered: 'False/NameConflict', shipName: undefined },
  },
  {
    name: 'a name another Ship holds, answered by a 409: NameConflict',
    facts: {
      roster: [online('n1', 'http://elsewhere:1')],
      posts: 1,
      posted: { kind: 'taken', name: 'n1' },
      claims: senior(),
    },
    finish: { ready: 'False/NameConflict' },
  },
  {
    name: 'created under a junior holder’s name and given back: NameConflict',
    facts: { roster: [], posts: 1, removed: ['n1'], posted: { kind: 'created', info: online('n1') }, claims: junior() },
    finish: { ready: 'False/NameConflict' },
  },
  {
    name: 'its own name, also claimed by a junior Ship: kept',
    facts: { ship: heldAt(), roster: [online('n1')], claims: junior() },
    finish: { ready: 'True/Online' },
  },
  {
    name: 'its own name, also claimed by a senior Ship: yielded (NameConflict)',
    facts: { ship: heldAt(), roster: [online('n1')], claims: senior() },
    finish: { ready: 'False/NameConflict' },
  },
  // Tokens and rotation.
  {
    name: 'held with the tokens of the Secret now named: kept',
    facts: {
      ship: heldAt({ tokenSecretName: 'old-creds' }),
      roster: [online('n1')],
      tokens: { ...PAIR, secretName: 'old-creds' },
    },
    finish: { ready: 'True/Online' },
  },
  {
    name: "held, the status without a fingerprint (written before them): kept, the pair's fingerprint recorded",
    facts: { ship: heldAt(), roster: [online('n1')] },
    finish: { ready: 'True/Online', status: expect.objectContaining({ tokenFingerprint: tokenFingerprint(PAIR) }) },
  },
  {
    name: "held with the Secret's current pair (same fingerprint): kept",
    facts: { ship: FINGERPRINTED, roster: [online('n1')] },
    finish: { ready: 'True/Online' },
  },
  {
    name: 'the ship answered 401 to the bridge: TokensInvalid',
    facts: { roster: [], posts: 1, posted: { kind: 'tokensRefused', message: 'x' } },
    finish: { ready: 'False/TokensInvalid', registered: 'False/TokensInvalid' },
  },
  // A changed URL.
  {
    name: 'a changed URL, created at the new one: held there',
    facts: {
      ship: MOVED,
      roster: OLD_URL,
      posts: 2,
      removed: ['n1'],
      posted: { kind: 'created', info: online('n1', 'http://10.0.0.2:4700') },
    },
    finish: {
      ready: 'True/Online',
      status: expect.objectContaining({ shipName: 'n1', registeredURL: 'http://10.0.0.2:4700' }),
    },
  },
  {
    name: 'a changed URL, the new one unreachable: the old registration stays held and reported, retried at shipRetryMs',
    facts: {
      ship: MOVED,
      roster: OLD_URL,
      posts: 1,
      posted: { kind: 'unreachable', message: 'ship at http://10.0.0.2:4700 did not respond: x' },
    },
    finish: {
      ready: 'False/ShipUnreachable',
      requeue: 15_000,
      status: expect.objectContaining({ registeredURL: 'http://10.0.0.1:4700' }),
    },
  },
  // expectedName.
  {
    name: 'created under another name than expectedName and given back: NameMismatch, nothing held',
    facts: { ship: EXPECTING, roster: [], posts: 1, removed: ['n1'], posted: { kind: 'created', info: online('n1') } },
    finish: { ready: 'False/NameMismatch', registered: 'False/NameMismatch', shipName: undefined },
  },
  // Bridge trouble.
  {
    name: 'the bridge down: Ready=False BridgeUnavailable, the registration and Registered kept, retried sooner',
    facts: {
      ship: REGISTERED_SINCE_2025,
      bridgeTrouble: { kind: 'unavailable', message: 'cannot reach the bridge at http://b (ECONNREFUSED)' },
    },
    finish: {
      ready: 'False/BridgeUnavailable',
      registered: 'True/Registered',
      requeue: 10_000,
      status: expect.objectContaining({ shipName: 'n1', bridgeStatus: 'online' }),
    },
  },
  {
    name: 'the bridge refuses the operator: Ready=False BridgeUnauthorized',
    facts: { bridgeTrouble: { kind: 'unauthorized', message: 'x' } },
    finish: { ready: 'False/BridgeUnauthorized' },
  },
  {
    name: 'deleting with the bridge down: the finalizer kept, Ready says deletion waits',
    facts: { ship: deleting('Deregister'), bridgeTrouble: { kind: 'unavailable', message: 'cannot reach' } },
    finish: { ready: 'False/BridgeUnavailable', readyMessage: expect.stringMatching(/^deletion waits for the bridge/) },
  },
];

describe('decideShip', () => {
  it.each(steps)('$name', ({ facts, step }) => {
    expect(decideShip(shipFacts(facts))).toEqual(step);
  });

  it.each(finishes)('$name', ({ facts, finish }) => {
    expect(summary(decideShip(shipFacts(facts)))).toMatchObject({ kind: 'finish', ...finish });
  });

  it('records the pair as a fingerprint, never a token', () => {
    const registered = finished(decideShip(shipFacts({ ship: heldAt(), roster: [online('n1')] })));
    expect(tokenFingerprint(PAIR)).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(registered)).not.toContain('"bt"');
  });

  it('after a NameMismatch, not probed again until allowed: the status is kept as it was, no Event', () => {
    const posted = { kind: 'created' as const, info: online('n1') };
    const mismatch = finished(
      decideShip(shipFacts({ ship: EXPECTING, roster: [], posts: 1, removed: ['n1'], posted })),
    );
    const after = ship({ spec: { expectedName: 'n2' }, status: mismatch.status });
    const kept = finished(decideShip(shipFacts({ ship: after, roster: [], mayProbe: false })));
    expect(kept).toMatchObject({ ready: 'False/NameMismatch', events: [] });
    expect(kept.status.conditions).toEqual(mismatch.status.conditions);
  });
});

describe("registerOutcomeOf: the bridge's answers to POST /ships, in its own formats (protocol/ship-registration.ts)", () => {
  const cases: { name: string; status: number; detail: string; outcome: Partial<ShipRegisterOutcome> }[] = [
    {
      name: '409 ship already registered: taken, with the name',
      status: 409,
      detail: shipAlreadyRegistered('n1'),
      outcome: { kind: 'taken', name: 'n1' },
    },
    {
      name: '502, the ship answered the stream 401: tokensRefused',
      status: 502,
      detail: shipDidNotRespond('http://x', shipStreamRefused(401)),
      outcome: { kind: 'tokensRefused' },
    },
    {
      name: '502, the ship answered the stream 404: unreachable',
      status: 502,
      detail: shipDidNotRespond('http://x', shipStreamRefused(404)),
      outcome: { kind: 'unreachable' },
    },
    {
      name: '502, connection refused: unreachable',
      status: 502,
      detail: shipDidNotRespond('http://x', 'connect ECONNREFUSED'),
      outcome: { kind: 'unreachable' },
    },
    {
      name: '409 about workspaces hosted elsewhere: refused, with the status',
      status: 409,
      detail: 'ship "n1" has workspaces already hosted elsewhere: r/w',
      outcome: { kind: 'refused', status: 409 },
    },
    {
      name: '409 about workspaces hosted elsewhere (another workspace): refused',
      status: 409,
      detail: 'ship "n1" has workspaces already hosted elsewhere: r/a',
      outcome: { kind: 'refused' },
    },
  ];
  it.each(cases)('$name', ({ status, detail, outcome }) => {
    expect(registerOutcomeOf(refusal(status, detail))).toMatchObject(outcome);
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

describe('readTokens: both keys or neither; Generated never fills in a Secret it did not write', () => {
  const secret = (data: Record<string, string>) => ({
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  });
  const withMode = (mode: 'Generated' | 'Secret' | 'None') =>
    ship({ spec: { auth: mode === 'Secret' ? { mode, secretRef: { name: 'mine' } } : { mode } } });
  const owned = (uid: string) => ({
    ...secret({ shipToken: 'a', bridgeToken: 'b' }),
    metadata: { ownerReferences: [{ apiVersion: 'svc.dev/v1alpha1', kind: 'Ship', name: 's1', uid }] },
  });
  type Read = Parameters<typeof readTokens>[1];
  /** `tokens` is compared whole when `exact`, else matched as a subset. */
  const cases: { name: string; mode: 'Generated' | 'Secret' | 'None'; read: Read; tokens: object; exact?: true }[] = [
    { name: 'None: no tokens', mode: 'None', read: undefined, tokens: { kind: 'none' }, exact: true },
    {
      name: 'Generated, no Secret yet: absent (the operator creates it)',
      mode: 'Generated',
      read: undefined,
      tokens: { kind: 'absent', secretName: 's1-tokens' },
      exact: true,
    },
    {
      name: 'Secret, not found: invalid',
      mode: 'Secret',
      read: undefined,
      tokens: { kind: 'invalid', message: 'Secret mine not found' },
    },
    {
      name: 'Secret with both keys: the pair',
      mode: 'Secret',
      read: secret({ shipToken: 'a', bridgeToken: 'b' }),
      tokens: { kind: 'pair', secretName: 'mine', shipToken: 'a', bridgeToken: 'b' },
      exact: true,
    },
    {
      name: 'Secret with neither key: no tokens, from that Secret',
      mode: 'Secret',
      read: secret({}),
      tokens: { kind: 'none', secretName: 'mine' },
      exact: true,
    },
    {
      name: 'Secret with an empty bridgeToken: invalid',
      mode: 'Secret',
      read: secret({ shipToken: 'a', bridgeToken: '' }),
      tokens: { kind: 'invalid' },
    },
    {
      name: 'Secret with one key: invalid',
      mode: 'Secret',
      read: secret({ bridgeToken: 'b' }),
      tokens: { kind: 'invalid' },
    },
    { name: 'Generated, the Secret empty: invalid', mode: 'Generated', read: secret({}), tokens: { kind: 'invalid' } },
    {
      name: 'Generated, the Secret this Ship owns: the pair',
      mode: 'Generated',
      read: owned('uid-s1'),
      tokens: { kind: 'pair' },
    },
    {
      name: 'Generated, a Secret an earlier Ship of this name owned: invalid',
      mode: 'Generated',
      read: owned('uid-old'),
      tokens: { kind: 'invalid', message: expect.stringContaining('belongs to an earlier Ship of this name') },
    },
  ];
  it.each(cases)('$name', ({ mode, read, tokens, exact }) => {
    const result = readTokens(withMode(mode), read);
    if (exact) expect(result).toEqual(tokens);
    else expect(result).toMatchObject(tokens);
  });

  it("an invalid Secret's message never carries a token", () => {
    const result = readTokens(withMode('Secret'), secret({ shipToken: 'a', bridgeToken: 'TOKEN-XYZ' }));
    expect(result.kind).toBe('pair');
    expect(JSON.stringify(readTokens(withMode('Secret'), secret({ bridgeToken: 'TOKEN-XYZ' })))).not.toContain(
      'TOKEN-XYZ',
    );
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
  const HELD = repo({ deleting: true, status: { repoName: 'app' } });
  const entry = (url: string) => ({ name: 'app', url, provider: 'custom' as const });
  /** `expected` is compared whole when `exact`, else matched as a subset. */
  const cases: { name: string; facts: Partial<RepoFacts>; expected: object; exact?: true }[] = [
    {
      name: 'no finalizer: adds it first',
      facts: { repo: repo({ finalizers: [] }) },
      expected: { kind: 'addFinalizer' },
      exact: true,
    },
    { name: 'no roster yet: reads the bridge', facts: {}, expected: { kind: 'readRoster' }, exact: true },
    {
      name: 'nothing registered: registers under spec.name (else metadata.name)',
      facts: { repo: repo({ spec: { name: 'App_1' } }), roster: [] },
      expected: {
        kind: 'register',
        request: { name: 'App_1', url: 'https://example.com/app.git', provider: 'custom' },
      },
      exact: true,
    },
    {
      name: 'an equal registration under metadata.name: adopted',
      facts: { roster: [entry('https://example.com/app.git')] },
      expected: {
        kind: 'finish',
        events: [{ reason: 'Adopted' }],
        status: { repoName: 'app', provider: 'custom', registeredURL: 'https://example.com/app.git' },
      },
    },
    {
      name: 'a different registration under the name: replaced',
      facts: { roster: [entry('https://example.com/old.git')] },
      expected: { kind: 'deregister', name: 'app', why: 'replace', event: { reason: 'Replaced' } },
    },
    {
      name: 'a name another Repo holds: NameConflict',
      facts: { roster: [], claims: new Map([['app', claim(false)]]) },
      expected: {
        kind: 'finish',
        status: {
          conditions: [
            { type: 'Registered', reason: 'NameConflict' },
            { type: 'Ready', reason: 'NameConflict' },
          ],
        },
      },
    },
    {
      name: 'the bridge refuses the registration: RegistrationRefused',
      facts: { roster: [], posts: 1, posted: { kind: 'refused', status: 400, message: 'invalid repo: x' } },
      expected: {
        kind: 'finish',
        status: { conditions: [{ reason: 'RegistrationRefused' }, { reason: 'RegistrationRefused' }] },
      },
    },
    // Deletion per policy; a never-held registration is removed only when equal to the spec.
    {
      name: 'deleting: deregisters the held name',
      facts: { repo: HELD },
      expected: { kind: 'deregister', name: 'app', why: 'delete' },
      exact: true,
    },
    {
      name: 'deleting, the name removed: drops the finalizer with an Event',
      facts: { repo: HELD, removed: ['app'] },
      expected: { kind: 'removeFinalizer', event: { reason: 'Deregistered' } },
    },
    {
      name: 'deleting (Orphan): drops the finalizer at once',
      facts: { repo: repo({ deleting: true, spec: { deletionPolicy: 'Orphan' }, status: { repoName: 'app' } }) },
      expected: { kind: 'removeFinalizer' },
      exact: true,
    },
    {
      name: 'deleting with nothing held, a registration unlike the spec: left alone',
      facts: { repo: repo({ deleting: true }), roster: [entry('https://other/x.git')] },
      expected: { kind: 'removeFinalizer' },
      exact: true,
    },
    {
      name: 'deleting with the bridge down: waits (BridgeUnavailable)',
      facts: { repo: HELD, bridgeTrouble: { kind: 'unavailable', message: 'x' } },
      expected: { kind: 'finish', status: { conditions: [{ reason: 'BridgeUnavailable' }] } },
    },
  ];
  it.each(cases)('$name', ({ facts, expected, exact }) => {
    const action = decideRepo(repoFacts(facts));
    if (exact) expect(action).toEqual(expected);
    else expect(action).toMatchObject(expected);
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
