import { describe, expect, it } from 'vitest';
import { documentedFiles, excludedCommand, findDocCommands, matchesDocumented, runDocCommand, toArgv } from './doc-commands.js';

const byFile = documentedFiles.map((file) => [file, findDocCommands(file)] as const);

describe('every `$ mcp-gate …` example in README.md and docs/*.md', () => {
  for (const [, commands] of byFile) {
    for (const command of commands) {
      const excluded = excludedCommand(command.line);
      if (excluded) continue;
      it(`${command.where}: ${command.line}`, async () => {
        const { output } = await runDocCommand(command.line);
        if (!matchesDocumented(command.output, output)) {
          // The whole real output, so a drifted block can be regenerated from it.
          expect(output, `${command.where} drifted; the real output is below`).toBe(`${command.output.join('\n')}\n`);
        }
      });
    }
  }

  it('are found, and only serve examples are left out', () => {
    const all = byFile.flatMap(([, commands]) => commands);
    const excluded = all.filter((command) => excludedCommand(command.line) !== undefined);
    expect(all.length).toBeGreaterThan(20);
    expect(excluded.every((command) => toArgv(command.line)[0] === 'serve')).toBe(true);
  });
});

describe('matchesDocumented', () => {
  it('compares exactly unless a `…` line shortens the block', () => {
    expect(matchesDocumented(['a', 'b'], 'a\nb\n')).toBe(true);
    expect(matchesDocumented(['a'], 'a\nb\n')).toBe(false);
    expect(matchesDocumented(['a', '…', 'c'], 'a\nb\nc\n')).toBe(true);
    expect(matchesDocumented(['c', '…', 'a'], 'a\nb\nc\n')).toBe(false);
    expect(matchesDocumented(['a', '…', 'x'], 'a\nb\nc\n')).toBe(false);
    expect(matchesDocumented(['a', '  …', 'c'], 'a\nb\nc\n')).toBe(true);
  });
});
