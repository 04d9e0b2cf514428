// A small closed-loop HTTP load generator for benchmarks: `concurrency` keep-alive clients issue requests
// back to back for a fixed duration (or count) and record each latency.
import http from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

export function timedRequest(
  agent: http.Agent,
  url: URL,
  method = 'GET',
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ ms: number; status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const request = http.request(
      url,
      { agent, method, headers: body ? { 'content-type': 'application/json', ...headers } : headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            ms: Number(process.hrtime.bigint() - started) / 1e6,
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

export interface LoadOptions {
  concurrency: number;
  durationMs: number;
  /** Sent with every request (the bridge's bearer token). */
  headers?: Record<string, string>;
}

export async function runLoad(url: string, options: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const target = new URL(url);
  const latencies: number[] = [];
  let errors = 0;
  const started = Date.now();
  const deadline = started + options.durationMs;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (Date.now() < deadline) {
        try {
          const result = await timedRequest(agent, target, 'GET', undefined, options.headers);
          if (result.status !== 200) errors++;
          latencies.push(result.ms);
        } catch {
          errors++;
        }
      }
    }),
  );
  agent.destroy();
  const seconds = (Date.now() - started) / 1000;
  return {
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/** Sequential requests, one at a time: latency distribution of a single client. */
export async function sequential(url: string, count: number, headers: Record<string, string> = {}): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) latencies.push((await timedRequest(agent, target, 'GET', undefined, headers)).ms);
  agent.destroy();
  return latencies;
}

/** Load on `subject` and `reference` alternately, `rounds` times each: both see the same machine noise. */
export async function interleavedLoad(
  subject: string,
  reference: string,
  options: LoadOptions & { rounds: number; referenceHeaders?: Record<string, string> },
): Promise<{ subject: LoadResult[]; reference: LoadResult[] }> {
  const result = { subject: [] as LoadResult[], reference: [] as LoadResult[] };
  for (let round = 0; round < options.rounds; round++) {
    result.subject.push(await runLoad(subject, options));
    result.reference.push(await runLoad(reference, { ...options, headers: options.referenceHeaders }));
  }
  return result;
}

/** Requests per second over several runs. */
export function overallRate(runs: LoadResult[]): number {
  return runs.reduce((sum, r) => sum + r.requests, 0) / runs.reduce((sum, r) => sum + r.seconds, 0);
}
