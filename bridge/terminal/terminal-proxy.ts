// WS /workspaces/:repo/:name/terminal on the bridge: a pipe to the owning ship's terminal socket, with the
// spec's proxy table: client frames before the upstream opens are held (at most 256 KiB, then both sides
// close 1009), every client frame is re-validated (1008), binary either way closes both (1003), each side's
// close is propagated to the other, and an unknown or offline workspace gets `{type: "exit", code: 1}`.
// The ship hop never offers deflate; toward the client, only large frames are compressed when it negotiated
// deflate (protocol/websocket-compression.ts), as the ship does for a client of its own.
import WebSocket from 'ws';
import { Compile } from 'typebox/compile';
import {
  EVENT_PENDING_BUFFER_LIMIT,
  keepAlive,
  TERMINAL_CLOSE,
  TerminalClientMessage,
  WEBSOCKET_MAX_PAYLOAD,
} from '../../protocol/index.js';
import { compressionFor } from '../../protocol/websocket-compression.js';

const checkMessage = Compile(TerminalClientMessage);
const PENDING_LIMIT = EVENT_PENDING_BUFFER_LIMIT;
const EXIT_1 = JSON.stringify({ type: 'exit', code: 1 });

/** A frame for the client, compressed only when large (and deflate was negotiated). */
const toClient = (client: WebSocket, text: string) => client.send(text, compressionFor(text));

export interface Upstream {
  url: string;
  bridgeToken: string | null;
}

/** Close codes a peer may not send on the wire are replaced by what they mean. */
function sendableCode(code: number): number {
  if (code === 1005) return 1000;
  if (code === 1006 || code === 1015) return 1011;
  return code;
}

/** `heartbeatMs`: ping interval on the upstream socket, so a ship lost behind a dead link closes the pipe. */
export function proxyTerminal(client: WebSocket, upstream: Upstream | null, heartbeatMs?: number): void {
  if (!upstream) {
    toClient(client, EXIT_1);
    client.close(1000, '');
    return;
  }
  const headers: Record<string, string> = {};
  if (upstream.bridgeToken) headers.authorization = `Bearer ${upstream.bridgeToken}`;
  const ship = new WebSocket(upstream.url, {
    headers,
    followRedirects: false,
    perMessageDeflate: false,
    maxPayload: WEBSOCKET_MAX_PAYLOAD,
  });
  ship.once('open', () => keepAlive(ship, heartbeatMs));
  let pending: string[] | null = [];
  let pendingBytes = 0;
  let done = false;

  const closeBoth = (how: { code: number; reason: string }) => {
    if (done) return;
    done = true;
    if (client.readyState === WebSocket.OPEN || client.readyState === WebSocket.CONNECTING)
      client.close(how.code, how.reason);
    if (ship.readyState === WebSocket.OPEN) ship.close(how.code, how.reason);
    else ship.terminate();
  };

  client.on('message', (data, isBinary) => {
    if (done) return;
    if (isBinary) return closeBoth(TERMINAL_CLOSE.binary);
    const text = data.toString();
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return closeBoth(TERMINAL_CLOSE.invalidMessage);
    }
    if (!checkMessage.Check(message)) return closeBoth(TERMINAL_CLOSE.invalidMessage);
    if (pending) {
      pending.push(text);
      pendingBytes += Buffer.byteLength(text);
      if (pendingBytes > PENDING_LIMIT) closeBoth(TERMINAL_CLOSE.bufferLimit);
      return;
    }
    if (ship.bufferedAmount > PENDING_LIMIT) return closeBoth(TERMINAL_CLOSE.bufferLimit);
    ship.send(text);
  });
  client.on('close', () => {
    if (done) return;
    done = true;
    // Releases the ship's one-terminal-per-session guard.
    if (ship.readyState === WebSocket.OPEN) ship.close(1000, '');
    else ship.terminate();
  });
  client.on('error', () => closeBoth({ code: 1011, reason: '' }));

  ship.on('open', () => {
    const held = pending ?? [];
    pending = null;
    for (const text of held) ship.send(text);
  });
  ship.on('message', (data, isBinary) => {
    if (done) return;
    if (isBinary) return closeBoth(TERMINAL_CLOSE.binary);
    if (client.bufferedAmount > PENDING_LIMIT) return closeBoth(TERMINAL_CLOSE.bufferLimit);
    toClient(client, data.toString());
  });
  ship.on('unexpected-response', (_request, response) => {
    response.resume();
    if (done) return;
    // The ship refused the upgrade (not a 101): the client learns the session is not reachable.
    done = true;
    toClient(client, EXIT_1);
    client.close(1000, '');
    ship.terminate();
  });
  ship.on('error', () => {
    if (done) return;
    done = true;
    toClient(client, EXIT_1);
    client.close(1000, '');
  });
  ship.on('close', (code, reason) => {
    if (done) return;
    done = true;
    client.close(sendableCode(code), reason.toString());
  });
}
