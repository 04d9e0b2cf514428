// A real git remote over smart HTTP for tests: `git http-backend` as CGI behind a small node server on
// loopback, optionally behind HTTP basic authentication, with an access log (each request's service and
// the bytes answered) and a hold a test can put on the next pack transfer (to stop a ship mid-fill).
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname } from 'node:path';

export interface GitHttpAccess {
  method: string;
  path: string;
  status: number;
  /** Bytes of the answer's body. */
  bytes: number;
}

export class GitHttpRemote {
  readonly log: GitHttpAccess[] = [];
  private holds: Array<{ ms: number; reached: () => void }> = [];

  private constructor(
    private readonly server: Server,
    private readonly base: string,
    private readonly bare: string,
    private readonly credentials: { username: string; password: string } | null,
  ) {}

  /** Serves the bare repository `bare`; with `credentials`, every request must carry them (basic auth). */
  static async start(
    bare: string,
    credentials: { username: string; password: string } | null = null,
  ): Promise<GitHttpRemote> {
    let self!: GitHttpRemote;
    const server = createServer((request, response) => void self.serve(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new GitHttpRemote(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bare, credentials);
    return self;
  }

  /** The clone URL, with `user:password@` when given. */
  url(auth?: { username: string; password: string }): string {
    const url = new URL(`${this.base}/${basename(this.bare)}`);
    if (auth) {
      url.username = encodeURIComponent(auth.username);
      url.password = encodeURIComponent(auth.password);
    }
    return url.toString();
  }

  /** Pack transfers (upload-pack POSTs) that answered more than `minBytes`. */
  packTransfers(minBytes = 1024): GitHttpAccess[] {
    return this.log.filter(
      (entry) => entry.method === 'POST' && entry.path.endsWith('/git-upload-pack') && entry.bytes > minBytes,
    );
  }

  /** Holds the next pack transfer `ms`; resolves when one arrives. */
  holdNextPack(ms: number): Promise<void> {
    return new Promise((reached) => this.holds.push({ ms, reached }));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private authorized(request: IncomingMessage): boolean {
    if (!this.credentials) return true;
    const header = request.headers.authorization ?? '';
    const expected = `Basic ${Buffer.from(`${this.credentials.username}:${this.credentials.password}`).toString('base64')}`;
    return header === expected;
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://git.invalid');
    const entry: GitHttpAccess = { method: request.method ?? 'GET', path: url.pathname, status: 0, bytes: 0 };
    this.log.push(entry);
    if (!this.authorized(request)) {
      entry.status = 401;
      request.resume();
      response.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    if (entry.method === 'POST' && url.pathname.endsWith('/git-upload-pack')) {
      const hold = this.holds.shift();
      if (hold) {
        hold.reached();
        // The hold the test asked for: the clone stalls mid-transfer for hold.ms.
        await new Promise((resolve) => setTimeout(resolve, hold.ms));
      }
    }
    const answered = await serveHttpBackend(this.bare, request, response);
    entry.status = answered.status;
    entry.bytes = answered.bytes;
  }
}

/**
 * Answers one request for the bare repository `bare` with `git http-backend` (CGI: headers with a `Status:`
 * among them, a blank line, the body). Resolves with the status and the body's size once it has ended.
 */
export async function serveHttpBackend(
  bare: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<{ status: number; bytes: number }> {
  const url = new URL(request.url ?? '/', 'http://git.invalid');
  const answered = { status: 0, bytes: 0 };
  const backend = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: dirname(bare),
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: url.pathname,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: request.method ?? 'GET',
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      ...(request.headers['content-length'] ? { CONTENT_LENGTH: request.headers['content-length'] } : {}),
      HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
      REMOTE_ADDR: '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  request.pipe(backend.stdin);
  backend.stdin.on('error', () => undefined);
  let head = Buffer.alloc(0);
  let headersDone = false;
  backend.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      answered.bytes += chunk.length;
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end).toString().split('\r\n')) {
      const colon = line.indexOf(':');
      const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
      else headers[name] = value;
    }
    answered.status = status;
    response.writeHead(status, headers);
    const rest = head.subarray(end + 4);
    answered.bytes += rest.length;
    response.write(rest);
  });
  await new Promise<void>((resolve) => backend.on('close', () => resolve()));
  if (!headersDone) response.writeHead(500);
  response.end();
  return answered;
}
