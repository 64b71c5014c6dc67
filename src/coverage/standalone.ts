// Coverage of the standalone config file (src/config/schema.ts): paths from the file's root.
import { enforced, guarding, type CoverageTable } from './types.js';

export const standaloneCoverage: CoverageTable = {
  'mcp.port': enforced('Bind.port'),
  'mcp.host': enforced('Bind.address'),
  'mcp.path': enforced('RouteMatch.path'),
  'mcp.prefixMode': enforced('McpBackend.prefixMode'),
  'mcp.failureMode': enforced('McpBackend.failureMode'),
  'mcp.maxRequestBytes': enforced('Policy.maxRequestBytes'),
  'mcp.targets[].name': enforced('McpTarget.name'),
  'mcp.targets[].stdio.*': enforced('McpTarget.stdio'),
  'mcp.targets[].streamableHttp.*': enforced('RemoteTarget.url'),
  'mcp.targets[].sse.*': enforced('RemoteTarget.url'),
  ...guarding({
    'mcp.policies.cors.*': enforced('Policy.cors'),
    'mcp.policies.mcpAuthentication.*': enforced('Policy.mcpAuthentication'),
    'mcp.policies.authorization.*': enforced('Policy.authorization'),
  }),
};
