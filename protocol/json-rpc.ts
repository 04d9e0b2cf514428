// JSON-RPC 2.0 bodies of the ship's MCP route (`/workspaces/:repo/:name/mcp`, docs/mcp.md) as its OpenAPI
// document names them: any message the MCP SDK answers, and the error the route itself answers to a method
// a stateless endpoint does not serve.
import { Type, type Static } from 'typebox';

/** A JSON-RPC 2.0 message: the MCP SDK's, whose fields are the MCP specification's. */
export const JsonRpcMessage = Type.Object({ jsonrpc: Type.Literal('2.0') }, { additionalProperties: true });
export type JsonRpcMessage = Static<typeof JsonRpcMessage>;

/** A JSON-RPC 2.0 error answering no request id. */
export const JsonRpcErrorResponse = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  error: Type.Object({ code: Type.Integer(), message: Type.String() }),
  id: Type.Null(),
});
export type JsonRpcErrorResponse = Static<typeof JsonRpcErrorResponse>;
