// The ships' token exchange (`svc operator --token-exchange-port`, 8082 in the chart): `POST /ship-tokens`
// with `Authorization: Bearer <the pod's projected service-account token>` answers `{shipToken, bridgeToken}`
// of the Ship named after the caller's node, decided by exchange-decide.ts. The API server vouches for the
// token (TokenReview: signature, expiry, the pod still exists, the audience); this module only reads, never
// writes. Every replica answers (reads go to the API server, not to the leader's cache). Nothing here logs a
// token; the answer carries `Cache-Control: no-store`. Anything else is 404/405; a refusal is `{error}`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { V1Pod, V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { PlainHttpServer } from '../../protocol/plain-http-server.js';
import { generatedTokenSecretName, type ShipResource } from '../resources/index.js';
import type { Cluster } from '../reconcile/cluster.js';
import { SHIP_RESOURCE } from '../reconcile/names.js';
import { decideExchange, reviewedPod, SHIP_TOKEN_AUDIENCE, type ExchangeAnswer } from './exchange-decide.js';

export const SHIP_TOKENS_PATH = '/ship-tokens';
/** Longer than any service-account token the API server issues (a few KiB), shorter than abuse. */
const CREDENTIAL_MAX = 16_384;

export interface TokenExchangeOptions {
  port: number;
  host?: string;
  cluster: Pick<Cluster, 'reviewToken' | 'readPod' | 'readObject' | 'readSecret'>;
  /** The namespace served (undefined: all). */
  namespace: string | undefined;
  /** Equality label selector of the ship DaemonSet's pods (`a=b,c=d`). */
  shipPodSelector: string;
  log: Logger;
}

/** Whether `labels` satisfy an equality-based selector such as `app.kubernetes.io/component=ship`. */
export function matchesSelector(selector: string, labels: Record<string, string> | undefined): boolean {
  return selector.split(',').filter(Boolean).every((term) => {
    const [key, value] = term.split('=').map((part) => part.trim());
    return labels?.[key!] === value;
  });
}

/** One exchange: review the credential, read the pod, its node's Ship and that Ship's Secret, decide. */
export async function exchange(options: Omit<TokenExchangeOptions, 'port' | 'host' | 'log'>, credential: string): Promise<ExchangeAnswer> {
  const claimed = reviewedPod(await options.cluster.reviewToken(credential, [SHIP_TOKEN_AUDIENCE]));
  if ('status' in claimed) return claimed;
  const pod: V1Pod | undefined = await options.cluster.readPod(claimed.namespace, claimed.pod);
  const node = pod?.metadata?.uid === claimed.uid ? pod.spec?.nodeName : undefined;
  const ship = node ? ((await options.cluster.readObject(SHIP_RESOURCE, { namespace: claimed.namespace, name: node })) as ShipResource | undefined) : undefined;
  const secret: V1Secret | undefined = ship ? await options.cluster.readSecret(claimed.namespace, generatedTokenSecretName(node!)) : undefined;
  return decideExchange({ claimed, pod, isShipPod: (each) => matchesSelector(options.shipPodSelector, each.metadata?.labels), namespace: options.namespace, ship, secret });
}

export class TokenExchangeServer {
  private constructor(private readonly server: PlainHttpServer) {}

  static async start(options: TokenExchangeOptions): Promise<TokenExchangeServer> {
    const server = await PlainHttpServer.start({
      port: options.port,
      host: options.host ?? '0.0.0.0',
      handle: (request, response) => answer(options, request, response),
      failed: (response, message) => send(response, 500, { error: message }),
    });
    return new TokenExchangeServer(server);
  }

  get port(): number {
    return this.server.port;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

async function answer(options: TokenExchangeOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (path !== SHIP_TOKENS_PATH) return send(response, 404, { error: 'not found' });
  if (request.method !== 'POST') {
    response.setHeader('Allow', 'POST');
    return send(response, 405, { error: 'method not allowed' });
  }
  const header = request.headers.authorization ?? '';
  const credential = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (!credential || credential.length > CREDENTIAL_MAX) return send(response, 401, { error: 'a service-account token is required' });
  let result: ExchangeAnswer;
  try {
    result = await exchange(options, credential);
  } catch (error) {
    options.log.warn({ err: (error as Error).message }, 'token exchange: the API server could not be asked');
    return send(response, 503, { error: 'the API server could not be asked; try again' });
  }
  if (result.status !== 200) {
    options.log.info({ status: result.status, reason: result.error }, 'token exchange refused');
    return send(response, result.status, { error: result.error });
  }
  options.log.debug({ node: result.node }, 'token exchange: answered a node\'s pair');
  return send(response, 200, result.pair);
}

function send(response: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}
