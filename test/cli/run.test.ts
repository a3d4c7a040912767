import { describe, expect, it } from 'vitest';
import { runWith } from './memory-io.js';

describe('run', () => {
  it('prints the command list for --help and exits 0', async () => {
    const result = await runWith(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: mcp-gate <command> [options]');
    for (const command of ['validate', 'explain', 'test', 'diff', 'manifest', 'serve', 'playground', 'proxy', 'check', 'profiles'])
      expect(result.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(result.stderr).toBe('');
  });

  it('prints the help to stderr and exits 2 when no command is given', async () => {
    const result = await runWith([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: mcp-gate <command> [options]');
  });

  it('names an unknown command and suggests the closest one', async () => {
    const result = await runWith(['valdate', 'policy.json']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'mcp-gate: unknown command "valdate" (did you mean "validate"?); see "mcp-gate --help"\n' });
  });

  it.each(['validate', 'explain', 'test', 'diff', 'manifest', 'serve', 'playground', 'proxy', 'check', 'profiles'])(
    'prints help for "%s" with --help, -h and "help %s"',
    async (command) => {
      const long = await runWith([command, '--help']);
      const short = await runWith([command, '-h']);
      const viaHelp = await runWith(['help', command]);
      expect(long.code).toBe(0);
      expect(long.stdout).toMatch(new RegExp(`^Usage: mcp-gate ${command}`));
      expect(long.stdout).toContain('  -h, --help');
      expect(short).toEqual(long);
      expect(viaHelp).toEqual(long);
    },
  );

  it('prints help even when other arguments are wrong', async () => {
    const result = await runWith(['explain', '--policy', 'missing.json', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: mcp-gate explain/);
  });

  it('suggests the option meant by a misspelt one', async () => {
    const result = await runWith(['explain', '--polcy', 'p.json']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'mcp-gate explain: unknown option "--polcy" (did you mean "--policy"?); see "mcp-gate explain --help"\n' });
  });

  it('rejects an option without its value', async () => {
    const result = await runWith(['explain', '--manifest', 'm.json', '--policy']);
    expect(result.stderr).toBe('mcp-gate explain: option "--policy" needs a value (--policy FILE)\n');
    expect(result.code).toBe(2);
  });

  it('rejects a single-valued option given twice', async () => {
    const result = await runWith(['explain', '--policy', 'a.json', '--policy', 'b.json']);
    expect(result.stderr).toBe('mcp-gate explain: option "--policy" may be given only once\n');
    expect(result.code).toBe(2);
  });

  it('rejects a value for a flag', async () => {
    const result = await runWith(['explain', '--json=yes']);
    expect(result.stderr).toBe('mcp-gate explain: option "--json" takes no value\n');
    expect(result.code).toBe(2);
  });

  it('accepts --name=value', async () => {
    const result = await runWith(['explain', '--policy=p.json', '--manifest=m.json']);
    expect(result.stderr).toBe('m.json: no such file\np.json: no such file\n');
    expect(result.code).toBe(1);
  });

  it('never prints a stack trace for a user mistake', async () => {
    const result = await runWith(['test', 'missing.cases.json']);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
