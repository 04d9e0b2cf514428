// A small plain node:http server for read-only side ports (the servers' --metrics-port, the operator's probe
// port): short request, header and keep-alive timeouts, a handler whose failure becomes a 500 (or a destroyed
// response once headers are out), listening resolved or rejected once, and a close that ends kept-alive
// connections too.
//
// Node only: server/ holds what the servers share; protocol/ stays browser-safe.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageOf } from '../protocol/thrown.js';

export interface PlainHttpServerOptions {
  port: number;
  host: string;
  /** Answers one request; a rejection is answered by `failed` (500) unless headers were already sent. */
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  failed(response: ServerResponse, message: string): void;
  /** The start-up error for a failed listen (default: the listen error itself). */
  listenError?: (error: Error) => Error;
}

export class PlainHttpServer {
  private constructor(private readonly server: Server) {}

  static async start(options: PlainHttpServerOptions): Promise<PlainHttpServer> {
    const server = createServer((request, response) => {
      void options.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) options.failed(response, messageOf(error));
        else response.destroy();
      });
    });
    server.requestTimeout = 10_000;
    server.headersTimeout = 5_000;
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(options.listenError ? options.listenError(error) : error));
      server.listen(options.port, options.host, () => {
        server.removeAllListeners('error');
        resolve();
      });
    });
    return new PlainHttpServer(server);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
