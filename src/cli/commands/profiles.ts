import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { exitCodes, UsageError } from '../io.js';
import { clientProfiles } from '../../profiles/client-profiles.js';
import { formatTable } from '../table.js';

export const profilesCommand: Command = {
  name: 'profiles',
  summary: 'list the real client profiles --client accepts',
  usage: 'mcp-gate profiles [--json]',
  description: [
    'Lists the MCP clients of the mcp-client-capabilities database: the id a client sends as its',
    'name, the product, and the capabilities it declares. --client takes an id or a product name.',
  ].join('\n'),
  options: { json: { type: 'boolean', description: 'print the profiles as JSON' } },
  async execute(args, io) {
    if (args.positionals.length > 0) throw new UsageError(`mcp-gate profiles: unexpected argument "${args.positionals[0]}"`);
    if (args.flag('json')) {
      writeLines(io.stdout, JSON.stringify(clientProfiles, null, 2));
      return exitCodes.ok;
    }
    const rows = clientProfiles.map((profile) => [profile.id, profile.title, Object.keys(profile.capabilities).join(', ') || '-']);
    writeLines(io.stdout, formatTable(['ID', 'PRODUCT', 'CAPABILITIES'], rows));
    return exitCodes.ok;
  },
};
