import type { OptionSpecs, ParsedArgs } from './args.js';
import type { CliIo } from './io.js';

/** One `mcp-gate` sub-command: its help and its work. `execute` returns the exit code. */
export interface Command {
  readonly name: string;
  /** One line for the command list in `mcp-gate --help`. */
  readonly summary: string;
  /** After `Usage: `, e.g. `mcp-gate validate <policy.json…>`. */
  readonly usage: string;
  readonly description: string;
  readonly options: OptionSpecs;
  execute(args: ParsedArgs, io: CliIo): Promise<number>;
}

/** Writes lines (without their newline) to one of the io streams. */
export function writeLines(write: (text: string) => void, text: string): void {
  if (text.length > 0) write(text.endsWith('\n') ? text : `${text}\n`);
}
