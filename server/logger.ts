// The one pino logger factory of svc's processes (bridge, ship, session holder, operator): JSON lines,
// level from SVC_LOG_LEVEL, each process's component name and redacted fields, request logs without bodies
// or secrets (the authorization header never, a `ticket` query value masked).
// The bridge's and the operator's lines go to stdout asynchronously (sonic-boom, flushed at exit), so a
// request never waits on the pipe a supervisor reads its logs from; the one line per request is written by
// the server's onResponse hook. The ship writes synchronously (`batched: false`): its few lines are each
// a state change someone waits to read.
// Lines are written in batches (issue #18): each write to stdout is a hand-off to libuv's thread pool and
// back, and one per request line cost the routed path more than the rest of its logging (bench/RESULTS.md,
// "Where the bridge's CPU per routed request went"). A batch goes out once it
// holds BATCH_BYTES or is FLUSH_MS old (a timer armed only while lines wait: sonic-boom's own periodicFlush
// writes an empty string every period, idle or not), and a line at warn or above goes out at once with what
// is pending, so what matters reaches the terminal without delay. The bridge's close flushes first thing
// (a SIGTERM under npx is followed by SIGKILL as soon as npm has exited); a SIGKILL alone can lose at most
// one batch of lines.
import { pino, type Logger } from 'pino';
import { redactTicket } from '../protocol/index.js';

export interface LoggerOptions {
  /** The `component` field of every line. */
  component: string;
  /** Paths pino replaces with `***` (the authorization header by default). */
  redact?: string[];
  level?: string;
  /** Batched asynchronous writes (default), or each line written at once. */
  batched?: boolean;
}

/** About twenty request lines. */
const BATCH_BYTES = 4096;
const FLUSH_MS = 100;
const WARN = 40;

function flushNow(destination: ReturnType<typeof pino.destination>): void {
  try {
    destination.flush();
  } catch {
    // destroyed: the process is exiting, and the exit hook has written what was pending
  }
}

export function createLogger({
  component,
  redact = ['req.headers.authorization'],
  level = process.env.SVC_LOG_LEVEL ?? 'info',
  batched = true,
}: LoggerOptions): Logger {
  const options = { level, base: { component }, redact: { paths: redact, censor: '***' } };
  if (!batched) return pino(options);
  const destination = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES });
  let flushing: NodeJS.Timeout | null = null;
  const flushSoon = () => {
    if (flushing !== null) return;
    flushing = setTimeout(() => {
      flushing = null;
      flushNow(destination);
    }, FLUSH_MS).unref();
  };
  return pino(
    {
      ...options,
      hooks: {
        logMethod(args, method, lineLevel) {
          method.apply(this, args);
          if (lineLevel >= WARN) flushNow(destination);
          else flushSoon();
        },
      },
    },
    destination,
  );
}

/**
 * The one line per request, written by the server's onResponse hook: plain fields built by hand and a child
 * logger without redaction (the line carries no headers, so there is nothing to redact), because pino's
 * serializers and its redaction pass cost the routed path more than the rest of the line (issue #18).
 */
export function requestLine(
  logger: Logger,
): (request: { method: string; url: string; ip?: string }, statusCode: number, responseTime: number) => void {
  const line = logger.child({}, { redact: [] });
  return (request, statusCode, responseTime) =>
    line.info(
      {
        req: { method: request.method, url: redactTicket(request.url), remoteAddress: request.ip },
        res: { statusCode },
        responseTime,
      },
      'request completed',
    );
}

export const requestSerializers = {
  req(request: { method: string; url: string; ip?: string; socket?: { remoteAddress?: string } }) {
    return {
      method: request.method,
      url: redactTicket(request.url),
      remoteAddress: request.ip ?? request.socket?.remoteAddress,
    };
  },
  res(reply: { statusCode: number }) {
    return { statusCode: reply.statusCode };
  },
};
