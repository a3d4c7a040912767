// Apart from the SDK: `mcp-gate proxy --help` and argument checks load this without it.

/** How the proxy speaks to an upstream URL: Streamable HTTP, or the legacy HTTP+SSE transport of protocol 2024-11-05. */
export type UpstreamHttpTransport = 'streamable-http' | 'sse';

/** Where the proxy's upstream is: a command it spawns and speaks stdio to, or a URL (Streamable HTTP unless `transport` says 'sse'). */
export type UpstreamSpec =
  | { readonly kind: 'command'; readonly command: string; readonly args: readonly string[] }
  | { readonly kind: 'url'; readonly url: URL; readonly transport?: UpstreamHttpTransport };

/**
 * Splits `--upstream-cmd "CMD ARGS"` into a command and its arguments as a POSIX shell would for
 * plain words and quoted ones ('single', "double", backslash escapes in double quotes and bare
 * words). No variables, globs or pipes: the command is spawned directly, never through a shell.
 * Returns an error message for an unterminated quote or an empty command.
 */
export function splitCommandLine(line: string): { command: string; args: string[] } | string {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word = (word ?? '') + char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && index + 1 < line.length && '"\\$`'.includes(line[index + 1]!)) word = (word ?? '') + line[++index]!;
      else word = (word ?? '') + char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= '';
    } else if (char === '\\' && index + 1 < line.length) {
      word = (word ?? '') + line[++index];
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + char;
    }
  }
  if (quote !== undefined) return `unterminated ${quote === '"' ? 'double' : 'single'} quote`;
  if (word !== undefined) words.push(word);
  const [command, ...args] = words;
  if (command === undefined || command === '') return 'no command given';
  return { command, args };
}
