// The floor for the routing benchmark: a minimal fastify server in its own process that forwards every GET
// to one upstream over a kept-alive node:http agent and passes the answer through untouched (no guard, no
// validation, no re-serialization). Whatever this costs, any Node HTTP hop costs at least as much on the
// same machine. Prints its port on stdout once listening.
import http from 'node:http';
import Fastify from 'fastify';

const upstream = new URL(process.argv[2]!);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const app = Fastify({ logger: false });
app.get('/*', (request, reply) => {
  const outgoing = http.request(
    { hostname: upstream.hostname, port: upstream.port, path: request.url, agent },
    (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on(
        'end',
        () =>
          void reply
            .code(response.statusCode ?? 502)
            .type(response.headers['content-type'] ?? 'application/json')
            .send(Buffer.concat(chunks)),
      );
    },
  );
  outgoing.on('error', (error) => void reply.code(502).send({ error: error.message }));
  outgoing.end();
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
