// The memory a WebSocket server keeps per socket once `ws` has compressed a message on it: its zlib stream
// lives as long as the socket. A child process (nothing else in its heap) runs a bare `ws` server with the
// `perMessageDeflate` options given as JSON in argv[2] and sends every client a 1,000-workspace `sync`
// compressed, as the bridge does to a new /events subscriber; it prints its port, then its RSS growth in
// bytes (from before the first connection) whenever it receives SIGUSR2.
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocketServer } from 'ws';

const text = JSON.stringify({
  type: 'sync',
  at: new Date().toISOString(),
  workspaces: Array.from({ length: 1000 }, (_, i) => ({
    repoName: `repo-${i % 5}`,
    name: `w${i}`,
    branch: 'main',
    active: false,
    agent: null,
    ship: `ship-${i % 5}`,
    ephemeral: null,
  })),
});
const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: JSON.parse(process.argv[2]!) });
server.on('connection', (socket) => socket.send(text, { compress: true }));
await new Promise((resolve) => server.once('listening', resolve));
global.gc?.();
await sleep(200);
const before = process.memoryUsage().rss;
process.on('SIGUSR2', () => {
  global.gc?.();
  process.stdout.write(`${process.memoryUsage().rss - before}\n`);
});
process.stdout.write(`${(server.address() as { port: number }).port}\n`);
