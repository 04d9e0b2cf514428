// POST /ships/:name/drain-report (admin: the operator's user): the operator forwards what a draining node's
// session holder found (protocol/drain-report.ts), and the bridge writes one warn line per workspace, so the
// people who watch the bridge's log see who is about to lose work (issue #30, docs/DECISIONS.md "Drain
// report"). The ship need not be registered any more: a drain may come after its deregistration. Nothing
// is stored; the report carries counts and branch names, never a URL or a token.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Logger } from 'pino';
import { describeFindings, DrainReport, DrainReportAccepted, identifierProblem } from '../../protocol/index.js';
import { answer, failures } from '../../server/route-responses.js';
import { invalidShipIdentifier } from '../errors.js';

const NameParams = Type.Object({ name: Type.String() });

export function drainReportRoutes(logger: Logger) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/ships/:name/drain-report',
      {
        schema: {
          params: NameParams,
          body: DrainReport,
          response: {
            200: answer('Logged: how many workspaces the report named.', DrainReportAccepted),
            ...failures({ 400: 'invalid ship identifier' }),
          },
        },
      },
      async (request) => {
        const problem = identifierProblem(request.params.name);
        if (problem) throw invalidShipIdentifier(problem);
        const ship = request.params.name;
        for (const found of request.body.workspaces) {
          const workspace = `${found.repo}/${found.name}`;
          logger.warn(
            { ship, workspace, findings: found },
            `drain of ship ${ship}: workspace ${workspace} has unpushed work: ${describeFindings(found)}`,
          );
        }
        return { logged: request.body.workspaces.length };
      },
    );
  };
}
