import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { exitCodes, UsageError } from '../io.js';
import { serverOptionSpecs, toManifestPrimitive } from '../manifest.js';
import { loadServerModule, readServerManifest } from '../server-module.js';

const command = 'mcp-gate manifest';

export const manifestCommand: Command = {
  name: 'manifest',
  summary: 'print the primitives of a server module as a manifest (the input of --manifest)',
  usage: 'mcp-gate manifest --server MODULE [--export NAME]',
  description: [
    'Imports MODULE (compiled JavaScript; TypeScript when mcp-gate runs under tsx), calls its server',
    'factory once, and prints {"server", "primitives"} JSON: every tool, prompt, resource and template',
    'with its gate metadata, read as the gate reads it (`_meta["mcp-gate"]`, then the module\'s',
    '`metadata` export). Registers nothing and connects nothing.',
  ].join('\n'),
  options: serverOptionSpecs,
  async execute(args, io) {
    if (args.positionals.length > 0) throw new UsageError(`${command}: unexpected argument "${args.positionals[0]}"; see "${command} --help"`);
    const path = args.string('server');
    if (path === undefined) throw new UsageError(`${command}: missing --server MODULE; see "${command} --help"`);
    const { server, primitives, warnings } = readServerManifest(await loadServerModule(io, path, args.string('export')));
    for (const warning of warnings) writeLines(io.stderr, warning);
    const manifest = server === undefined ? { primitives: primitives.map(toManifestPrimitive) } : { server, primitives: primitives.map(toManifestPrimitive) };
    writeLines(io.stdout, JSON.stringify(manifest, null, 2));
    return exitCodes.ok;
  },
};
