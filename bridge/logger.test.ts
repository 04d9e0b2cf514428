import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLine } from './logger.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()));
      callback();
    },
  });
  // The bridge logger's redaction of the authorization header, as createLogger sets it.
  return { lines, logger: pino({ level: 'info', redact: { paths: ['req.headers.authorization'], censor: '***' } }, stream) };
}

describe('the request line', () => {
  it('names method, URL with its ticket masked, client address, status and time, and nothing else of the request', () => {
    const { lines, logger } = capture();
    requestLine(logger)({ method: 'GET', url: '/events?ticket=secret-ticket&x=1', ip: '127.0.0.1' }, 101, 2.5);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { method: 'GET', url: '/events?ticket=***&x=1', remoteAddress: '127.0.0.1' },
      res: { statusCode: 101 },
      responseTime: 2.5,
    });
    expect(Object.keys(lines[0]!.req as object).sort()).toEqual(['method', 'remoteAddress', 'url']);
    expect(JSON.stringify(lines[0])).not.toContain('secret-ticket');
  });

  it('is written only at info or below', () => {
    const { lines, logger } = capture();
    logger.level = 'warn';
    requestLine(logger)({ method: 'GET', url: '/workspaces' }, 200, 1);
    expect(lines).toHaveLength(0);
  });
});
