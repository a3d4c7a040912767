import { formatHelp, parseArguments } from './args.js';
import type { Command } from './command.js';
import { writeLines } from './command.js';
import { checkCommand } from './commands/check.js';
import { diffCommand } from './commands/diff.js';
import { explainCommand } from './commands/explain.js';
import { manifestCommand } from './commands/manifest.js';
import { playgroundCommand } from './commands/playground.js';
import { profilesCommand } from './commands/profiles.js';
import { proxyCommand } from './commands/proxy.js';
import { serveCommand } from './commands/serve.js';
import { testCommand } from './commands/test.js';
import { validateCommand } from './commands/validate.js';
import { exitCodes, InputError, UsageError, type CliIo } from './io.js';
import { MissingPeerError, missingPeerExitCode } from './peers.js';
import { closeMatches } from '../core/logic/suggest.js';

export type { CliIo } from './io.js';

/** A command as the command list knows it: enough for `mcp-gate --help`, and how to load the rest. */
export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  load(): Promise<Command>;
}

function loaded(command: Command): CommandEntry {
  return { name: command.name, summary: command.summary, load: async () => command };
}

/**
 * Every command. No command module imports the v1 SDK at its top: serve loads it when it runs
 * (serve-runtime.ts, through importPeer), so the list and every help run without the SDK.
 */
export const commandEntries: readonly CommandEntry[] = [
  loaded(validateCommand),
  loaded(explainCommand),
  loaded(testCommand),
  loaded(diffCommand),
  loaded(checkCommand),
  loaded(manifestCommand),
  loaded(serveCommand),
  loaded(playgroundCommand),
  loaded(proxyCommand),
  loaded(profilesCommand),
];

/**
 * Runs one `mcp-gate` invocation and returns its exit code: 0 success, 1 a check failed or an
 * input is invalid, 2 the command line is wrong, 3 an optional peer the command needs is missing.
 * Touches nothing outside `io`, except what `serve` exists for: a port on 127.0.0.1, the decision
 * log file and a watch on the policy's directory; `playground` a port on 127.0.0.1.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined) {
      // Asked for nothing: the help is the error message.
      writeLines(io.stderr, globalHelp());
      return exitCodes.usage;
    }
    if (name === '--help' || name === '-h') {
      writeLines(io.stdout, globalHelp());
      return exitCodes.ok;
    }
    if (name === 'help') return await showCommandHelp(rest[0], io);
    const entry = commandEntries.find((candidate) => candidate.name === name);
    if (!entry) throw unknownCommand(name);
    const command = await entry.load();
    const args = parseArguments(rest, command.options, `mcp-gate ${command.name}`);
    if (args.help) {
      writeLines(io.stdout, formatHelp(command.usage, command.description, command.options));
      return exitCodes.ok;
    }
    return await command.execute(args, io);
  } catch (error) {
    if (error instanceof MissingPeerError) {
      writeLines(io.stderr, error.message);
      return missingPeerExitCode;
    }
    if (error instanceof UsageError || error instanceof InputError) {
      // Messages already name the command (`mcp-gate explain: …`) or the file (`policy.json: …`).
      writeLines(io.stderr, error.message);
      return error instanceof UsageError ? exitCodes.usage : exitCodes.failed;
    }
    // Anything else is a bug in mcp-gate, not a user mistake: keep the stack for the report.
    writeLines(io.stderr, `mcp-gate: internal error (please report): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return exitCodes.failed;
  }
}

function unknownCommand(name: string): UsageError {
  const [suggestion] = closeMatches(
    name,
    commandEntries.map((command) => command.name),
    1,
  );
  const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
  return new UsageError(`mcp-gate: unknown command "${name}"${hint}; see "mcp-gate --help"`);
}

async function showCommandHelp(name: string | undefined, io: CliIo): Promise<number> {
  if (name === undefined) {
    writeLines(io.stdout, globalHelp());
    return exitCodes.ok;
  }
  const entry = commandEntries.find((candidate) => candidate.name === name);
  if (!entry) throw unknownCommand(name);
  const command = await entry.load();
  writeLines(io.stdout, formatHelp(command.usage, command.description, command.options));
  return exitCodes.ok;
}

function globalHelp(): string {
  const rows: Array<[string, string]> = commandEntries.map((command) => [command.name, command.summary]);
  const width = Math.max(...rows.map(([name]) => name.length));
  return [
    'Usage: mcp-gate <command> [options]',
    '',
    'Decide which MCP tools, prompts and resources each request sees, and check why.',
    '',
    'Commands:',
    ...rows.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
    '',
    'Run "mcp-gate <command> --help" for a command\'s options. Docs: docs/cli.md',
  ].join('\n');
}
