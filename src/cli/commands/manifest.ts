import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { exitCodes, UsageError } from '../io.js';
import { primitiveSourceOptionSpecs, readManifestSource, toManifestPrimitive } from '../manifest.js';
import { upstreamSourceUsage } from '../upstream-source.js';

const command = 'mcp-gate manifest';

export const manifestCommand: Command = {
  name: 'manifest',
  summary: 'print the primitives of a server module or a live upstream as a manifest (the input of --manifest)',
  usage: `mcp-gate manifest (--server MODULE [--export NAME] | ${upstreamSourceUsage}) [--overlay FILE]`,
  description: [
    'Imports MODULE (compiled JavaScript; TypeScript when mcp-gate runs under tsx), calls its server',
    'factory once, and prints {"server", "primitives"} JSON: every tool, prompt, resource and template',
    'with its gate metadata, read as the gate reads it (`_meta["mcp-gate"]`, then the module\'s',
    '`metadata` export). Registers nothing and connects nothing. With --upstream-cmd or --upstream-url it',
    'connects to that MCP server (any language) once, lists every page of its tools, prompts, resources',
    'and templates, and prints them annotated as `mcp-gate proxy` would (`_meta["mcp-gate"]`, else --overlay):',
    'a starting point for an overlay.',
  ].join('\n'),
  options: primitiveSourceOptionSpecs,
  async execute(args, io) {
    if (args.positionals.length > 0) throw new UsageError(`${command}: unexpected argument "${args.positionals[0]}"; see "${command} --help"`);
    const { server, primitives, warnings } = await readManifestSource(io, args, command);
    for (const warning of warnings) writeLines(io.stderr, warning);
    const manifest = server === undefined ? { primitives: primitives.map(toManifestPrimitive) } : { server, primitives: primitives.map(toManifestPrimitive) };
    writeLines(io.stdout, JSON.stringify(manifest, null, 2));
    return exitCodes.ok;
  },
};
