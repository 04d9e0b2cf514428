// The ship's pino logger: JSON lines, level from SVC_LOG_LEVEL, and request logs that carry neither bodies
// nor secrets (the authorization header is never logged; a `ticket` query value is masked).
import { pino, type Logger } from 'pino';
import { redactTicket } from '../protocol/index.js';

export function createLogger(level = process.env.SVC_LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { component: 'ship' },
    redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '***' },
  });
}

/** Request/response serializers for fastify: method, redacted URL and peer only. */
export const requestSerializers = {
  req(request: { method: string; url: string; ip?: string; socket?: { remoteAddress?: string } }) {
    return { method: request.method, url: redactTicket(request.url), remoteAddress: request.ip ?? request.socket?.remoteAddress };
  },
  res(reply: { statusCode: number }) {
    return { statusCode: reply.statusCode };
  },
};
