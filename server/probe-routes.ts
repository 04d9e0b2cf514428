// The probe and metrics routes on a server's main port, the same on ship and bridge (issue #20):
//   GET /healthz — 200 `{ok: true}` while the process serves (liveness: the event loop answers);
//   GET /readyz  — 200 `{ok: true}`, or 503 `{ok: false, failing, error}` naming the first readiness check
//                  that failed (protocol/probes.ts);
//   GET /metrics — Prometheus text format.
// Who may call them is the server's guard's business: the probes are open routes on both, `/metrics` needs
// what the server's other routes need. The probes are left out of the request log (`logLevel: 'silent'`):
// a kubelet probing every few seconds would otherwise drown it.
//
// Node only: server/ holds what the servers share; protocol/ stays browser-safe.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  HEALTHZ_PATH,
  METRICS_PATH,
  ProbeFailure,
  ProbeOk,
  READYZ_PATH,
  type ProbeResult,
} from '../protocol/probes.js';
import type { MetricsSource } from './metrics-port.js';
import { answer, textAnswer } from './route-responses.js';

export interface ProbeRoutesOptions {
  readiness: () => Promise<ProbeResult>;
  metrics: MetricsSource;
}

export function probeRoutes(options: ProbeRoutesOptions) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const open = { security: [] };
    app.get(
      HEALTHZ_PATH,
      {
        logLevel: 'silent',
        schema: {
          ...open,
          summary: 'Liveness: the process serves.',
          response: { 200: answer('The process serves.', ProbeOk) },
        },
      },
      async () => ({ ok: true }) as const,
    );
    app.get(
      READYZ_PATH,
      {
        logLevel: 'silent',
        schema: {
          ...open,
          summary: 'Readiness, or the first check that failed.',
          response: {
            200: answer('Ready.', ProbeOk),
            503: answer('Not ready: the first readiness check that failed, and why.', ProbeFailure),
          },
        },
      },
      async (_request, reply) => {
        const result = await options.readiness();
        if (!result.ok) reply.code(503);
        return result;
      },
    );
    app.get(
      METRICS_PATH,
      {
        schema: {
          summary: 'Prometheus metrics (text exposition format).',
          response: { 200: textAnswer('The metrics, in the Prometheus text exposition format.') },
        },
      },
      async (_request, reply) => {
        const body = await options.metrics.text();
        return reply.header('content-type', options.metrics.contentType).header('cache-control', 'no-store').send(body);
      },
    );
  };
}
