import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
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
  return {
    lines,
    logger: pino({ level: 'info', redact: { paths: ['req.headers.authorization'], censor: '***' } }, stream),
  };
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

describe("the bridge logger's batched output", () => {
  const logger = resolve(import.meta.dirname, '../dist/server/logger.js');
  // A child process logging through createLogger: its stdout is the log, stderr carries markers.
  function run(script: string): Promise<Array<{ stream: 'out' | 'err'; text: string }>> {
    if (!existsSync(logger)) throw new Error('run `npm run build` first (npm test does)');
    const child = spawn(process.execPath, [
      '--input-type=module',
      '-e',
      `import { createLogger } from ${JSON.stringify(logger)};\nconst log = createLogger({ component: 'bridge', level: 'info' });\n${script}`,
    ]);
    const events: Array<{ stream: 'out' | 'err'; text: string }> = [];
    child.stdout.on('data', (chunk: Buffer) => events.push({ stream: 'out', text: chunk.toString() }));
    child.stderr.on('data', (chunk: Buffer) => events.push({ stream: 'err', text: chunk.toString() }));
    return new Promise((resolveRun) => child.on('close', () => resolveRun(events)));
  }

  it('writes a warning at once, with the lines pending before it, even while the event loop is blocked', async () => {
    const events = await run(`
      log.info('pending info');
      log.warn('the warning');
      const until = Date.now() + 1500;
      while (Date.now() < until);
      process.stderr.write('blocked-loop-ended\\n');
      process.exit(0);`);
    const ended = events.findIndex((event) => event.stream === 'err' && event.text.includes('blocked-loop-ended'));
    const before = events
      .slice(0, ended)
      .filter((event) => event.stream === 'out')
      .map((event) => event.text)
      .join('');
    expect(ended).toBeGreaterThan(0);
    expect(before).toContain('"msg":"pending info"');
    expect(before).toContain('"msg":"the warning"');
  });

  it('writes an info line within the flush interval while the process runs on', async () => {
    const events = await run(`
      log.info('alone');
      setTimeout(() => { process.stderr.write('a-second-later\\n'); process.exit(0); }, 1000);`);
    const marker = events.findIndex((event) => event.stream === 'err' && event.text.includes('a-second-later'));
    expect(marker).toBeGreaterThan(0);
    expect(
      events.slice(0, marker).some((event) => event.stream === 'out' && event.text.includes('"msg":"alone"')),
    ).toBe(true);
  });

  it('loses no batched line at exit', async () => {
    const events = await run(`for (let i = 0; i < 5; i++) log.info('line ' + i);\nprocess.exit(0);`);
    const lines = events
      .filter((event) => event.stream === 'out')
      .map((event) => event.text)
      .join('')
      .trim()
      .split('\n');
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['line 0', 'line 1', 'line 2', 'line 3', 'line 4']);
  });
});
