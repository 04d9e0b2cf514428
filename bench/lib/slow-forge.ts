// A forge across a network, for the fan-out benchmark (issue #29): the bare repositories of one directory
// served over smart HTTP by `git http-backend` (test/helpers/git-http-remote.ts), each request held 20 ms
// before it is answered, and every byte the forge sends paced through one 25 MB/s link shared by all
// connections (a TCP proxy in front of the HTTP server), as one host's link to a forge would be. Run as its
// own process so the backends it forks never count as the benchmark's CPU. Prints its port once listening.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { serveHttpBackend } from '../../test/helpers/git-http-remote.js';

const REQUEST_LATENCY_MS = 20;
const LINK_BYTES_PER_SECOND = 25e6;

/** One link's pace: each chunk leaves when the link has finished sending the ones before it. */
class Link {
  private freeAt = 0;

  /** Milliseconds `bytes` must wait before they leave. */
  reserve(bytes: number): number {
    const now = performance.now();
    const start = Math.max(now, this.freeAt);
    this.freeAt = start + (bytes * 1000) / LINK_BYTES_PER_SECOND;
    return start - now;
  }
}

function paced(link: Link): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      const wait = link.reserve(chunk.length);
      if (wait < 1) return done(null, chunk);
      setTimeout(() => done(null, chunk), wait);
    },
  });
}

const root = process.argv[2]!;
const backend = createHttpServer((request, response) => {
  const name = new URL(request.url ?? '/', 'http://forge.invalid').pathname.split('/')[1] ?? '';
  void sleep(REQUEST_LATENCY_MS).then(() => serveHttpBackend(join(root, name), request, response));
});
await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
const backendPort = (backend.address() as AddressInfo).port;

const link = new Link();
const front = createTcpServer((client) => {
  const upstream = connect(backendPort, '127.0.0.1');
  client.pipe(upstream);
  upstream.pipe(paced(link)).pipe(client);
  // The forge's end reaches the client through the pipe once the link has sent everything before it.
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close).on('close', close);
  upstream.on('error', close);
});
await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${(front.address() as AddressInfo).port}\n`);
process.on('SIGTERM', () => process.exit(0));
