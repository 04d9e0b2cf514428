// The reference for HTTP benchmarks: a bare node:http server in its own process that answers every request
// with a fixed body (the same bytes the ship answers), printing its port on stdout once listening.
import http from 'node:http';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.argv[2]!);
const server = http.createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  response.end(body);
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
