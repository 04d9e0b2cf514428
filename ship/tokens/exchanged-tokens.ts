// The ship's token pair when it comes from the operator's token exchange (`svc ship --tokens-from`, the
// chart's per-node pairs; docs/DECISIONS.md "Per-node token pairs") instead of SVC_BRIDGE_TOKEN and
// SVC_SHIP_TOKEN. The ship presents its pod's projected service-account token (read from its file at every
// fetch: the kubelet rotates it) and gets its own node's pair. Such a ship is never open: without a pair yet
// it refuses every credentialed route. It fetches again when a caller presents a bearer it does not know
// (the bridge after a rotation: the registration probe carries the new pair), at most once per
// REFRESH_MIN_MS and one fetch at a time (the request waits for it), and every REFRESH_EVERY_MS as a backstop. The tokens stay in this
// object's memory: never in a file, a log line or the environment of anything the ship starts.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { messageOf } from '../../protocol/index.js';
import { postWithPodToken } from './pod-token-post.js';

/** Fetches start at most once per this interval (a flood of unknown bearers costs one TokenReview a second). */
const REFRESH_MIN_MS = 1_000;
const REFRESH_EVERY_MS = 5 * 60_000;
const FETCH_TIMEOUT_MS = 10_000;

export interface TokenPair {
  shipToken: string;
  bridgeToken: string;
}

export interface ExchangeOptions {
  /** The exchange's URL (`POST`), e.g. http://svc-operator.svc.svc:8082/ship-tokens. */
  url: string;
  /** The file holding the pod's projected service-account token. */
  credentialFile: string;
  logger: Logger;
  clock?: () => number;
}

export class ExchangedTokens {
  private pair: TokenPair | undefined;
  private lastFetch = -Infinity;
  private inFlight: Promise<boolean> | undefined;
  /** The next fetch, not started yet (waiting for the one in flight or for REFRESH_MIN_MS). */
  private pending: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly clock: () => number;

  constructor(private readonly options: ExchangeOptions) {
    this.clock = options.clock ?? Date.now;
  }

  get bridgeToken(): string | undefined {
    return this.pair?.bridgeToken;
  }

  get shipToken(): string | undefined {
    return this.pair?.shipToken;
  }

  /** First fetch (a failure is logged, not thrown: the operator may not have made the pair yet) and the backstop timer. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * Resolves, true when the pair changed, after a fetch that started after this call: a caller holding a
   * rotated token must not be answered from a fetch that began before the rotation. Fetches start at most once
   * per REFRESH_MIN_MS and never overlap; every caller waiting meanwhile shares the next one.
   */
  refresh(): Promise<boolean> {
    this.pending ??= (async () => {
      await this.inFlight?.catch(() => undefined);
      const wait = this.lastFetch + REFRESH_MIN_MS - this.clock();
      if (wait > 0) await sleep(wait);
      this.pending = undefined;
      this.lastFetch = this.clock();
      this.inFlight = this.fetchPair();
      return this.inFlight;
    })();
    return this.pending;
  }

  private async fetchPair(): Promise<boolean> {
    const { logger } = this.options;
    try {
      const response = await postWithPodToken({
        url: this.options.url,
        credentialFile: this.options.credentialFile,
        timeoutMs: FETCH_TIMEOUT_MS,
      });
      const body = (await response.json().catch(() => ({}))) as Partial<TokenPair> & { error?: string };
      if (
        response.status !== 200 ||
        typeof body.shipToken !== 'string' ||
        typeof body.bridgeToken !== 'string' ||
        !body.shipToken ||
        !body.bridgeToken
      ) {
        logger.warn({ status: response.status, error: body.error }, 'token exchange: no pair for this ship yet');
        return false;
      }
      const changed = body.bridgeToken !== this.pair?.bridgeToken || body.shipToken !== this.pair?.shipToken;
      this.pair = { shipToken: body.shipToken, bridgeToken: body.bridgeToken };
      if (changed) logger.info("token exchange: this ship's token pair is in use (a new one)");
      return changed;
    } catch (error) {
      logger.warn({ err: messageOf(error) }, "token exchange: could not fetch this ship's token pair");
      return false;
    }
  }
}
