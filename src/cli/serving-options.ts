// The option readers serve and proxy share: the port, the decision log and its headers, whole numbers.
import type { ParsedArgs } from './args.js';
import { UsageError } from './io.js';

/** --port, checked against --stdio; `fallback` when absent. */
export function readPort(args: ParsedArgs, command: string, { stdio, fallback }: { readonly stdio: boolean; readonly fallback: number }): number {
  const portText = args.string('port');
  if (stdio && portText !== undefined) throw new UsageError(`${command}: pass either --port or --stdio, not both`);
  if (portText !== undefined && !/^\d{1,5}$/.test(portText)) throw new UsageError(`${command}: --port must be a number from 0 to 65535, got "${portText}"`);
  const port = portText === undefined ? fallback : Number(portText);
  if (port > 65535) throw new UsageError(`${command}: --port must be a number from 0 to 65535, got "${portText}"`);
  return port;
}

/** --decision-log and --log-headers (lower-cased, comma lists split). */
export function readDecisionLogOptions(
  args: ParsedArgs,
  command: string,
  { stdio }: { readonly stdio: boolean },
): { readonly decisionLog: string | undefined; readonly logHeaders: readonly string[] } {
  const decisionLog = args.string('decision-log');
  if (stdio && decisionLog === '-') throw new UsageError(`${command}: --decision-log - would write into the MCP stream on stdout; give a file with --stdio`);
  const logHeaders = args
    .strings('log-headers')
    .flatMap((list) => list.split(','))
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (logHeaders.length > 0 && decisionLog === undefined) throw new UsageError(`${command}: --log-headers needs --decision-log`);
  return { decisionLog, logHeaders };
}

/** A whole number in decimal digits from `minimum` to `maximum`, or `fallback` when the option is absent. */
export function readWholeNumber(
  args: ParsedArgs,
  name: string,
  command: string,
  { minimum, maximum, fallback }: { minimum: number; maximum: number; fallback: number },
): number {
  const text = args.string(name);
  if (text === undefined) return fallback;
  const value = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= minimum && value <= maximum)) throw new UsageError(`${command}: --${name} must be a whole number from ${minimum} to ${maximum}, got "${text}"`);
  return value;
}
