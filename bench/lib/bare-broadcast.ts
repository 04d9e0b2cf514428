// The reference for the event fan-out benchmark: a bare `ws` server in a process of its own, as the bridge
// and the ship are, that broadcasts the text it is sent to every client with `ws`'s own `send` (no
// compression, no bounds, no slicing). In the benchmark's own process the broadcast and the 500 clients
// reading it shared one thread, so the reference's spread after the first arrival left out its sends.
// A forkWorker (fork-worker.ts): ready with `{port}`; the command `{broadcast: text}` answers once sent.
import { WebSocketServer } from 'ws';

const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
server.on('connection', (socket) => socket.send('{"type":"hello"}'));
await new Promise((resolve) => server.once('listening', resolve));
process.on('message', (message: { id: number; command: { broadcast: string } }) => {
  for (const client of server.clients) client.send(message.command.broadcast);
  process.send!({ id: message.id, reply: server.clients.size });
});
process.send!({ ready: { port: (server.address() as { port: number }).port } });
process.on('SIGTERM', () => server.close(() => process.exit(0)));
