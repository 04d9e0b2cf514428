// The ships' token exchange (`svc operator --token-exchange-port`, 8082 in the chart): `POST /ship-tokens`
// with `Authorization: Bearer <the pod's projected service-account token>` answers `{shipToken, bridgeToken}`
// of the Ship named after the caller's node, decided by exchange-decide.ts. The API server vouches for the
// token (TokenReview: signature, expiry, the pod still exists, the audience); this module only reads, never
// writes. Every replica answers (reads go to the API server, not to the leader's cache). Nothing here logs a
// token; the answer carries `Cache-Control: no-store`. Anything else is 404/405; a refusal is `{error}`.
// Beside it, `POST /drain-report` (drain-report.ts): a draining session holder's report of unpushed work,
// with its own pod's token, recorded as Events on its node's Ship and forwarded to the bridge.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Compile } from 'typebox/compile';
import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { PlainHttpServer } from '../../server/plain-http-server.js';
import { generatedTokenSecretName, type ShipResource } from '../resources/index.js';
import type { Cluster } from '../reconcile/cluster.js';
import { SHIP_RESOURCE } from '../reconcile/names.js';
import { DrainReport, messageOf } from '../../protocol/index.js';
import type { BridgeClient } from '../bridge-client.js';
import {
  decideExchange,
  reviewedPod,
  SHIP_TOKEN_AUDIENCE,
  type ClaimedPod,
  type ExchangeAnswer,
  type Refusal,
} from './exchange-decide.js';
import {
  decideDrainReport,
  DRAIN_REPORT_AUDIENCE,
  drainEvents,
  HOLDER_POD_SELECTOR,
  type DrainDecision,
} from './drain-report.js';

export const SHIP_TOKENS_PATH = '/ship-tokens';
export const DRAIN_REPORT_PATH = '/drain-report';
/** A report of DRAIN_REPORT_MAX_WORKSPACES workspaces with long branch names fits well within this. */
const REPORT_MAX_BYTES = 1_048_576;
const checkReport = Compile(DrainReport);
/** Longer than any service-account token the API server issues (a few KiB), shorter than abuse. */
const CREDENTIAL_MAX = 16_384;

export interface TokenExchangeOptions {
  port: number;
  host?: string;
  cluster: Pick<Cluster, 'reviewToken' | 'readPod' | 'readObject' | 'readSecret' | 'recordEvent'>;
  /** Where drain reports are forwarded (undefined: Events only). */
  bridge?: Pick<BridgeClient, 'drainReport'>;
  /** The namespace served (undefined: all). */
  namespace: string | undefined;
  /** Equality label selector of the ship DaemonSet's pods (`a=b,c=d`). */
  shipPodSelector: string;
  log: Logger;
}

/** Whether `labels` satisfy an equality-based selector such as `app.kubernetes.io/component=ship`. */
export function matchesSelector(selector: string, labels: Record<string, string> | undefined): boolean {
  return selector
    .split(',')
    .filter(Boolean)
    .every((term) => {
      const [key, value] = term.split('=').map((part) => part.trim());
      return labels?.[key!] === value;
    });
}

/**
 * Who calls: the credential reviewed for `audience`, the pod it names as the API server has it now, and the
 * Ship named after that pod's node (read only when the pod is still the one the token was bound to).
 */
async function lookUpCaller(
  cluster: TokenExchangeOptions['cluster'],
  credential: string,
  audience: string,
): Promise<
  Refusal | { claimed: ClaimedPod; pod: V1Pod | undefined; node: string | undefined; ship: ShipResource | undefined }
> {
  const claimed = reviewedPod(await cluster.reviewToken(credential, [audience]), audience);
  if ('status' in claimed) return claimed;
  const pod = await cluster.readPod(claimed.namespace, claimed.pod);
  const node = pod?.metadata?.uid === claimed.uid ? pod.spec?.nodeName : undefined;
  const ship = node
    ? await cluster.readObject<ShipResource & KubernetesObject>(SHIP_RESOURCE, {
        namespace: claimed.namespace,
        name: node,
      })
    : undefined;
  return { claimed, pod, node, ship };
}

/** One exchange: review the credential, read the pod, its node's Ship and that Ship's Secret, decide. */
export async function exchange(
  options: Omit<TokenExchangeOptions, 'port' | 'host' | 'log'>,
  credential: string,
): Promise<ExchangeAnswer> {
  const caller = await lookUpCaller(options.cluster, credential, SHIP_TOKEN_AUDIENCE);
  if ('status' in caller) return caller;
  const { claimed, pod, node, ship } = caller;
  const secret =
    ship && node ? await options.cluster.readSecret(claimed.namespace, generatedTokenSecretName(node)) : undefined;
  return decideExchange({
    claimed,
    pod,
    isShipPod: (each) => matchesSelector(options.shipPodSelector, each.metadata?.labels),
    namespace: options.namespace,
    ship,
    secret,
  });
}

/** Starts the exchange's port; its `close()` ends it. */
export function startTokenExchange(options: TokenExchangeOptions): Promise<PlainHttpServer> {
  return PlainHttpServer.start({
    port: options.port,
    host: options.host ?? '0.0.0.0',
    handle: (request, response) => answer(options, request, response),
    failed: (response, message) => send(response, 500, { error: message }),
  });
}

async function answer(
  options: TokenExchangeOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (path !== SHIP_TOKENS_PATH && path !== DRAIN_REPORT_PATH) return send(response, 404, { error: 'not found' });
  if (request.method !== 'POST') {
    response.setHeader('Allow', 'POST');
    return send(response, 405, { error: 'method not allowed' });
  }
  const header = request.headers.authorization ?? '';
  const credential = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (!credential || credential.length > CREDENTIAL_MAX)
    return send(response, 401, { error: 'a service-account token is required' });
  if (path === DRAIN_REPORT_PATH) return drainReport(options, credential, request, response);
  let result: ExchangeAnswer;
  try {
    result = await exchange(options, credential);
  } catch (error) {
    options.log.warn({ err: messageOf(error) }, 'token exchange: the API server could not be asked');
    return send(response, 503, { error: 'the API server could not be asked; try again' });
  }
  if (result.status !== 200) {
    options.log.info({ status: result.status, reason: result.error }, 'token exchange refused');
    return send(response, result.status, { error: result.error });
  }
  options.log.debug({ node: result.node }, "token exchange: answered a node's pair");
  return send(response, 200, result.pair);
}

/** The body as JSON, or undefined when it is larger than `limit` or not JSON. */
async function readJson(request: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** POST /drain-report: who asks (its pod, so its node's Ship), then one Event per workspace, then the bridge. */
async function drainReport(
  options: TokenExchangeOptions,
  credential: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  let decision: DrainDecision;
  try {
    const caller = await lookUpCaller(options.cluster, credential, DRAIN_REPORT_AUDIENCE);
    if ('status' in caller) return send(response, caller.status, { error: caller.error });
    const { claimed, pod, ship } = caller;
    decision = decideDrainReport({
      claimed,
      pod,
      isHolderPod: (each) => matchesSelector(HOLDER_POD_SELECTOR, each.metadata?.labels),
      namespace: options.namespace,
      ship,
    });
  } catch (error) {
    options.log.warn({ err: messageOf(error) }, 'drain report: the API server could not be asked');
    return send(response, 503, { error: 'the API server could not be asked; try again' });
  }
  if (decision.status !== 200) {
    options.log.info({ status: decision.status, reason: decision.error }, 'drain report refused');
    return send(response, decision.status, { error: decision.error });
  }
  const report = await readJson(request, REPORT_MAX_BYTES);
  if (!checkReport.Check(report)) return send(response, 400, { error: 'the body is not a drain report' });
  const { ship, node } = decision;
  for (const event of drainEvents(node, report)) await options.cluster.recordEvent(ship, event);
  const shipName = ship.status?.shipName ?? ship.metadata.name ?? node;
  let bridge: 'logged' | 'unreachable' | 'not configured' = 'not configured';
  if (options.bridge && report.workspaces.length > 0) {
    bridge = await options.bridge.drainReport(shipName, report).then(
      () => 'logged' as const,
      (error: unknown) => {
        options.log.warn({ ship: shipName, err: messageOf(error) }, 'drain report: the bridge did not take it');
        return 'unreachable' as const;
      },
    );
  }
  options.log.info(
    { node, ship: shipName, workspaces: report.workspaces.length, scanned: report.scanned, bridge },
    'drain report recorded',
  );
  return send(response, 200, { events: report.workspaces.length, bridge });
}

function send(response: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}
