import { UsageError } from './io.js';
import { closeMatches } from '../core/logic/suggest.js';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** May be given more than once (`--header a=1 --header b=2`); otherwise a repeat is a usage error. */
  readonly multiple?: boolean;
  /** Placeholder shown in help, e.g. `FILE`. */
  readonly value?: string;
  readonly description: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export interface ParsedArgs {
  readonly positionals: readonly string[];
  readonly help: boolean;
  flag(name: string): boolean;
  string(name: string): string | undefined;
  strings(name: string): readonly string[];
}

/**
 * A small argv parser (rather than node:util parseArgs) so every mistake gets our own one-line
 * message naming the command and, for a typo, the option meant.
 * Accepts `--name value`, `--name=value`, `--flag`, `-h`, and `--` before positionals that start with `-`.
 */
export function parseArguments(argv: readonly string[], specs: OptionSpecs, command: string): ParsedArgs {
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  let help = false;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '--') {
      positionals.push(...argv.slice(index + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = arg.slice(arg.startsWith('--') ? 2 : 1, equals < 0 ? undefined : equals);
    const spec = arg.startsWith('--') ? specs[name] : undefined;
    if (!spec || !Object.hasOwn(specs, name)) throw unknownOption(arg.slice(0, equals < 0 ? undefined : equals), specs, command);
    let value: string;
    if (spec.type === 'boolean') {
      if (equals >= 0) throw new UsageError(`${command}: option "--${name}" takes no value`);
      value = 'true';
    } else if (equals >= 0) {
      value = arg.slice(equals + 1);
    } else {
      const next = argv[index + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2)) {
        throw new UsageError(`${command}: option "--${name}" needs a value (--${name} ${spec.value ?? 'VALUE'})`);
      }
      value = next;
      index++;
    }
    const list = values.get(name) ?? [];
    if (list.length > 0 && !spec.multiple) throw new UsageError(`${command}: option "--${name}" may be given only once`);
    list.push(value);
    values.set(name, list);
  }
  return {
    positionals,
    help,
    flag: (name) => values.has(name),
    string: (name) => values.get(name)?.[0],
    strings: (name) => values.get(name) ?? [],
  };
}

function unknownOption(option: string, specs: OptionSpecs, command: string): UsageError {
  const known = Object.keys(specs).map((name) => `--${name}`);
  const [suggestion] = closeMatches(option, known, 1);
  const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
  return new UsageError(`${command}: unknown option "${option}"${hint}; see "${command} --help"`);
}

/** Help text: usage, what the command does, then its options aligned in a column. */
export function formatHelp(usage: string, description: string, specs: OptionSpecs): string {
  const rows = Object.entries(specs).map(([name, spec]) => [`--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}`, spec.description]);
  rows.push(['-h, --help', 'show this help']);
  const width = Math.max(...rows.map(([left]) => left!.length));
  const options = rows.map(([left, right]) => `  ${left!.padEnd(width)}  ${right}`);
  return [`Usage: ${usage}`, '', description, '', 'Options:', ...options, ''].join('\n');
}
