// GET, POST, DELETE /workspaces/:repo/:name/mcp: stateless Streamable HTTP (docs/mcp.md). The
// request guard (ship/http/request-guard.ts) has already admitted the caller: the bridge token, or this
// workspace's own MCP token. Identifiers are checked (400) and the workspace must exist (404 {error}) for
// every method. POST gets a fresh server + transport bound to this workspace; it answers JSON unless the
// Accept header lists text/event-stream before application/json. GET and DELETE answer 405 (Allow: POST):
// without a session there is no stream to open and nothing to end. Each method declares its answers
// (server/route-responses.ts); those of the POST are the MCP SDK's, written by the transport.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Type } from 'typebox';
import { ErrorBody, WorkspaceParams } from '../../../protocol/index.js';
import { JsonRpcErrorResponse, JsonRpcMessage } from '../../../protocol/json-rpc.js';
import { answer, failures, noBody } from '../../../server/route-responses.js';
import type { BridgeCredentials } from '../bridge-credentials.js';
import type { WorkspaceService } from '../../workspaces/service.js';
import { checkParams, INVALID_IDENTIFIER, NOT_FOUND, ON_WORKSPACE } from '../../routes/workspaces.js';
import { buildMcpServer } from './server.js';

export const MCP_BRIDGE_TIMEOUT_MS = 30_000;

export interface McpRouteOptions {
  bridgeTimeoutMs?: number;
}

/** Whether the caller asked for an event stream first (the SDK client lists JSON first). */
export function prefersEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const sse = types.indexOf('text/event-stream');
  const json = types.indexOf('application/json');
  return sse !== -1 && (json === -1 || sse < json);
}

const jsonRpcError = (message: string): JsonRpcErrorResponse => ({
  jsonrpc: '2.0',
  error: { code: -32000, message },
  id: null,
});

const NO_SESSIONS = {
  params: WorkspaceParams,
  response: {
    405: answer('Stateless: no session to open or end; send requests with POST (`Allow: POST`).', JsonRpcErrorResponse),
    ...ON_WORKSPACE,
  },
};
const MCP_REQUEST = {
  params: WorkspaceParams,
  response: {
    200: {
      description: "The MCP server's answer: JSON, or an event stream when Accept lists text/event-stream first.",
      content: {
        'application/json': { schema: JsonRpcMessage },
        'text/event-stream': { schema: { type: 'string' } },
      },
    },
    202: noBody('Accepted: the request held only notifications or responses.'),
    400: answer(
      `${INVALID_IDENTIFIER} (\`{error}\`); or a message the MCP transport refuses (JSON-RPC error)`,
      Type.Union([ErrorBody, JsonRpcMessage]),
    ),
    406: answer('The Accept header lists neither application/json nor text/event-stream.', JsonRpcMessage),
    415: answer('The body is not application/json.', JsonRpcMessage),
    ...failures({ 404: NOT_FOUND }),
  },
};

export function mcpRoutes(service: WorkspaceService, credentials: BridgeCredentials, options: McpRouteOptions = {}) {
  return async (instance: FastifyInstance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('preValidation', checkParams);

    const notAllowed = async (request: FastifyRequest<{ Params: WorkspaceParams }>, reply: FastifyReply) => {
      await service.agentStatus(request.params.repo, request.params.name); // 404 for a workspace that does not exist
      return reply
        .code(405)
        .header('allow', 'POST')
        .send(
          jsonRpcError(`Method not allowed: this stateless MCP endpoint has no sessions; send requests with POST.`),
        );
    };
    app.get('/workspaces/:repo/:name/mcp', { schema: NO_SESSIONS }, notAllowed);
    app.delete('/workspaces/:repo/:name/mcp', { schema: NO_SESSIONS }, notAllowed);

    app.post('/workspaces/:repo/:name/mcp', { schema: MCP_REQUEST }, async (request, reply) => {
      const { repo, name } = request.params;
      await service.agentStatus(repo, name); // 404 before any MCP processing
      const server = buildMcpServer({
        repo,
        name,
        service,
        credentials,
        bridgeTimeoutMs: options.bridgeTimeoutMs ?? MCP_BRIDGE_TIMEOUT_MS,
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: !prefersEventStream(request.headers.accept),
      });
      reply.hijack(); // the transport writes reply.raw itself
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        request.log.error({ err: error }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' });
          reply.raw.end(
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }),
          );
        } else reply.raw.end();
      }
    });
  };
}
