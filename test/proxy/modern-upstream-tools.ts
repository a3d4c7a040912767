import { acceptedContent, inputRequired, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

// Tools that exercise what 2026-07-28 adds, for the tests' recording upstreams on
// `@modelcontextprotocol/server` 2.4 (stateless.test.ts, era-bridge*.test.ts).

/** `deploy`: asks its client to confirm first (2026-07-28's `input_required` result), then deploys. */
export function registerConfirmingDeploy(server: McpServer): void {
  const confirmation = z.object({ confirm: z.boolean() });
  server.registerTool('deploy', { description: 'asks before it deploys' }, (context) => {
    const confirmed = acceptedContent(context.mcpReq.inputResponses, 'confirm', confirmation);
    if (confirmed?.confirm === true) return { content: [{ type: 'text' as const, text: 'deployed' }] };
    return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: 'Deploy?', requestedSchema: confirmation }) } });
  });
}

/** `regional`: a SEP-2243 header parameter; the upstream refuses a call whose Mcp-Param-Region header does not match its body. */
export function registerRegional(server: McpServer): void {
  server.registerTool('regional', { description: 'by region', inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }) }, ({ region }) => ({
    content: [{ type: 'text' as const, text: `region ${region}` }],
  }));
}

/** `slow`: reports progress 1, 2, 3 of 3 when the call has a progress token, then answers "done". */
export function registerSlow(server: McpServer): void {
  server.registerTool('slow', { description: 'reports its progress' }, async (context) => {
    const progressToken = context.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) {
      for (let step = 1; step <= 3; step++) await context.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: step, total: 3 } });
    }
    return { content: [{ type: 'text' as const, text: 'done' }] };
  });
}
