// The bridge's pino logger: JSON lines, level from SVC_LOG_LEVEL, request logs without bodies or secrets.
// Lines go to stdout asynchronously (sonic-boom, flushed at exit), so a request never waits on the pipe a
// supervisor reads its logs from; the one line per request is written by the server's onResponse hook.
// The operator's logger is this one with its own component and redacted fields (operator/runtime/start.ts).
import { pino, type Logger } from 'pino';
import { redactTicket } from '../protocol/index.js';

export function createLogger(
  level = process.env.SVC_LOG_LEVEL ?? 'info',
  component = 'bridge',
  redact: string[] = ['req.headers.authorization'],
): Logger {
  return pino({ level, base: { component }, redact: { paths: redact, censor: '***' } }, pino.destination({ dest: 1, sync: false }));
}

/**
 * The one line per request, written by the server's onResponse hook: plain fields built by hand and a child
 * logger without redaction (the line carries no headers, so there is nothing to redact), because pino's
 * serializers and its redaction pass cost the routed path more than the rest of the line (issue #18).
 */
export function requestLine(logger: Logger): (request: { method: string; url: string; ip?: string }, statusCode: number, responseTime: number) => void {
  const line = logger.child({}, { redact: [] });
  return (request, statusCode, responseTime) =>
    line.info({ req: { method: request.method, url: redactTicket(request.url), remoteAddress: request.ip }, res: { statusCode }, responseTime }, 'request completed');
}

export const requestSerializers = {
  req(request: { method: string; url: string; ip?: string }) {
    return { method: request.method, url: redactTicket(request.url), remoteAddress: request.ip };
  },
  res(reply: { statusCode: number }) {
    return { statusCode: reply.statusCode };
  },
};
