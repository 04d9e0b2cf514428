// The bridge's event connection to one ship (`WS <ship>/events`): validates every frame, hands the first
// `sync` to whoever waits for it (registration learns the ship's name from it), passes later frames on,
// and reconnects after a loss with capped exponential backoff and jitter. Never follows a redirect, and
// treats any answer to the upgrade other than 101 as a failure (docs/security.md H8).
import WebSocket from 'ws';
import { Compile } from 'typebox/compile';
import { FleetEvent, keepAlive, type SyncEvent, type WorkspaceEvent } from '../../protocol/index.js';
import { shipStreamRefused } from '../../protocol/ship-registration.js';
import { Backoff } from '../../protocol/backoff.js';

const checkEvent = Compile(FleetEvent);
/** A ship's frames are bounded too: an 8 MiB sync is far past any real fleet. */
const MAX_SHIP_FRAME = 8 * 1024 * 1024;
/**
 * Events a ship may send per second (docs/security.md H9). Past it the stream is dropped and reopened: the
 * fresh `sync` replaces whatever was skipped, and a flooding ship costs the bridge one reconnect per
 * backoff step instead of unbounded work.
 */
export const SHIP_EVENTS_PER_SECOND = 200;

export interface ShipStreamHandlers {
  onSync(sync: SyncEvent): void;
  onEvent(event: WorkspaceEvent): void;
  onOnline(online: boolean): void;
}

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  /** Event budget per second before the stream is reset (default SHIP_EVENTS_PER_SECOND). */
  eventsPerSecond?: number;
}

export interface ShipStreamOptions extends BackoffOptions {
  /**
   * Ping interval on the stream (default 30 s): a ship behind a blackholed link never closes the socket,
   * so only missed pongs reveal it (docs/security.md X6) and turn it offline.
   */
  heartbeatMs?: number;
}

export function eventsUrl(shipUrl: string): string {
  const url = new URL('/events', shipUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

export class ShipConnection {
  private socket: WebSocket | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private online = false;
  private handlers: ShipStreamHandlers | null = null;
  private windowStart = 0;
  private windowEvents = 0;

  /** Reconnects from `initialMs` (250) doubling up to `maxMs` (30 s), each wait cut by up to half at random. */
  private readonly backoff: Backoff;

  constructor(
    readonly url: string,
    private readonly bridgeToken: string | null,
    private readonly options: ShipStreamOptions = {},
  ) {
    this.backoff = new Backoff({ baseMs: options.initialMs ?? 250, maxMs: options.maxMs ?? 30_000, jitter: 0.5 });
  }

  /**
   * Opens the stream and resolves with the ship's first `sync` (rejecting after `timeoutMs`, or when the
   * ship refuses). Later frames are buffered until `attach` names their handlers.
   */
  open(timeoutMs: number): Promise<SyncEvent> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.dropSocket();
        reject(new Error(message));
      };
      const timer = setTimeout(() => fail(`no sync within ${timeoutMs} ms`), timeoutMs);
      this.connect((sync) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(sync);
      }, fail);
    });
  }

  /** Starts delivering to `handlers`, reconnecting on every loss until `close()`. */
  attach(handlers: ShipStreamHandlers): void {
    this.handlers = handlers;
    if (this.online) handlers.onOnline(true);
    if (!this.socket) this.scheduleReconnect(0);
  }

  isOnline(): boolean {
    return this.online;
  }

  private connect(onFirstSync: (sync: SyncEvent) => void, onFailure: (message: string) => void): void {
    const headers: Record<string, string> = {};
    if (this.bridgeToken) headers.authorization = `Bearer ${this.bridgeToken}`;
    const socket = new WebSocket(eventsUrl(this.url), {
      headers,
      followRedirects: false,
      maxPayload: MAX_SHIP_FRAME,
      handshakeTimeout: 5000,
    });
    this.socket = socket;
    let synced = false;
    socket.once('open', () => keepAlive(socket, this.options.heartbeatMs));
    socket.on('unexpected-response', (_request, response) => {
      onFailure(shipStreamRefused(response.statusCode ?? 0));
      socket.terminate();
    });
    socket.on('error', (error) => onFailure(error.message));
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      let frame: unknown;
      try {
        frame = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (!checkEvent.Check(frame)) return;
      const event = frame as SyncEvent | WorkspaceEvent;
      if (event.type === 'sync') {
        if (!synced) {
          synced = true;
          this.backoff.reset();
          this.setOnline(true);
          onFirstSync(event);
        }
        this.handlers?.onSync(event);
        return;
      }
      if (!synced) return;
      const now = Date.now();
      if (now - this.windowStart >= 1000) {
        this.windowStart = now;
        this.windowEvents = 0;
      }
      if (++this.windowEvents > (this.options.eventsPerSecond ?? SHIP_EVENTS_PER_SECOND)) {
        this.lost();
        return;
      }
      this.handlers?.onEvent(event as WorkspaceEvent);
    });
    socket.on('close', () => {
      if (this.socket === socket) this.socket = null;
      onFailure('the ship closed the event stream');
      this.setOnline(false);
      if (!this.closed && this.handlers) this.scheduleReconnect();
    });
  }

  private setOnline(online: boolean): void {
    if (this.online === online) return;
    this.online = online;
    this.handlers?.onOnline(online);
  }

  private scheduleReconnect(delay?: number): void {
    if (this.closed || this.retry) return;
    const wait = delay ?? this.backoff.next();
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.closed)
        this.connect(
          () => undefined,
          () => undefined,
        );
    }, wait);
  }

  /** Marks the ship lost now (a routed call failed at transport level); the stream reconnects. */
  lost(): void {
    this.dropSocket();
    this.setOnline(false);
    if (!this.closed && this.handlers) this.scheduleReconnect();
  }

  private dropSocket(): void {
    const socket = this.socket;
    this.socket = null;
    socket?.removeAllListeners('close');
    socket?.terminate();
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.dropSocket();
    this.setOnline(false);
  }
}
