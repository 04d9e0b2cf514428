// A small TCP proxy for fault tests (docs/security.md X6, X9): put it between two real processes and make the
// link slow (latency, a bandwidth cap), dead or hostile (reset, half-close) while they run. Bytes keep their
// order; a blackhole holds them (as TCP would while retransmitting) and a heal delivers what the peers are
// still there to receive.
import { createServer, connect, type Server, type Socket } from 'node:net';

interface Direction {
  to: Socket;
  queue: Array<{ at: number; chunk: Buffer }>;
  timer: NodeJS.Timeout | null;
  /** Dropped from now on (the far side of a half-close). */
  cut: boolean;
  /** When the last queued chunk arrives: the next one cannot arrive before it. */
  busyUntil: number;
}

export class FaultProxy {
  /** Added to every chunk, each way. */
  latencyMs = 0;
  /** Each way, at most this many bytes a second (0: no cap). */
  bytesPerSecond = 0;
  private blackholed = false;
  private readonly directions = new Set<Direction>();
  private readonly sockets = new Set<Socket>();
  /** Per open connection: the direction toward the connecting peer, and that peer's socket. */
  private readonly towardClient = new Map<Socket, Direction>();
  private heldCloses: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on 127.0.0.1 and forwards every connection to `targetPort` there. */
  static async start(targetPort: number): Promise<FaultProxy> {
    let proxy!: FaultProxy;
    const server = createServer((client) => proxy.accept(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new FaultProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Nothing gets through either way, on open and new connections alike; no FIN, no RST. */
  blackhole(): void {
    this.blackholed = true;
  }

  /** What the link holds undelivered right now (either way), as text: lets a test see a request in flight. */
  heldText(): string {
    return [...this.directions]
      .flatMap((direction) => direction.queue.map(({ chunk }) => chunk.toString('latin1')))
      .join('');
  }

  heal(): void {
    this.blackholed = false;
    this.latencyMs = 0;
    this.bytesPerSecond = 0;
    for (const direction of this.directions) this.pump(direction);
    for (const propagate of this.heldCloses.splice(0)) propagate();
  }

  /**
   * Every open connection is half-closed: the connecting peer gets a FIN as if the other end had finished
   * sending, and nothing more from it; what the connecting peer sends still goes through. New connections
   * are not affected.
   */
  halfClose(): void {
    for (const [client, direction] of this.towardClient) {
      direction.cut = true;
      direction.queue.length = 0;
      client.end();
    }
  }

  /** Every open connection is reset (RST to both peers). */
  reset(): void {
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => {
        this.sockets.delete(socket);
        // A peer's close crosses a blackhole no better than its data: it arrives when the link heals.
        const propagate = () => {
          client.destroy();
          upstream.destroy();
        };
        if (this.blackholed) this.heldCloses.push(propagate);
        else propagate();
      });
    }
    this.forward(client, upstream);
    this.towardClient.set(client, this.forward(upstream, client));
    client.once('close', () => this.towardClient.delete(client));
  }

  private forward(from: Socket, to: Socket): Direction {
    const direction: Direction = { to, queue: [], timer: null, cut: false, busyUntil: 0 };
    this.directions.add(direction);
    from.once('close', () => {
      this.directions.delete(direction);
      if (direction.timer) clearTimeout(direction.timer);
    });
    // An empty chunk stands for the peer's FIN, delivered in order after its data. Under a bandwidth cap a
    // chunk arrives when the link has had time to carry it after the one before.
    const enqueue = (chunk: Buffer) => {
      if (direction.cut) return;
      const transfer = this.bytesPerSecond > 0 ? (chunk.length * 1000) / this.bytesPerSecond : 0;
      direction.busyUntil = Math.max(Date.now() + this.latencyMs, direction.busyUntil) + transfer;
      direction.queue.push({ at: direction.busyUntil, chunk });
      this.pump(direction);
    };
    from.on('data', enqueue);
    from.on('end', () => enqueue(Buffer.alloc(0)));
    return direction;
  }

  private pump(direction: Direction): void {
    if (this.blackholed || direction.timer || direction.cut) return;
    const now = Date.now();
    while (direction.queue.length > 0 && direction.queue[0]!.at <= now) {
      const { chunk } = direction.queue.shift()!;
      if (chunk.length === 0) direction.to.end();
      else direction.to.write(chunk);
    }
    const next = direction.queue[0];
    if (next) {
      direction.timer = setTimeout(() => {
        direction.timer = null;
        this.pump(direction);
      }, next.at - now);
    }
  }
}
