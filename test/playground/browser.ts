// Shared by the playground's browser tests: Debian's chromium driven by playwright-core (never a
// downloaded browser), the page built once per run (test/built-dist.ts), and `mcp-gate playground`
// run in-process.
import { existsSync, mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { run, type CliIo } from '../../src/cli/run.js';
import type { PlaygroundState } from '../../playground/src/model.js';

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
export const chromiumPath = '/usr/bin/chromium';

/**
 * What tests read inside the page, typed without the DOM library (the main tsconfig has none, so
 * src/ cannot use it): `(globalThis as unknown as PageGlobals)` inside `page.evaluate` callbacks.
 */
export interface PageElement {
  readonly dataset: Readonly<Record<string, string | undefined>>;
  readonly textContent: string | null;
  readonly className: string;
  readonly classList: { contains(name: string): boolean };
  getAttribute(name: string): string | null;
}
export interface PageGlobals {
  readonly document: {
    querySelectorAll(selector: string): Iterable<PageElement>;
    getElementById(id: string): PageElement | null;
    readonly activeElement: PageElement | null;
  };
  readonly mcpGatePlayground?: {
    readonly updates: number;
    readonly lastUpdate?: { cells: number; evaluateMs: number; renderMs: number; totalMs: number };
    state(): PlaygroundState;
    readonly editor: { readonly state: { readonly doc: { toString(): string } } };
  };
}

/** A fresh profile directory each launch: no state from an earlier run, no network services. */
export async function launchChromium(): Promise<BrowserContext> {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: apt-get install -y chromium (.ci/run installs it)`);
  const userDataDir = mkdtempSync(join(tmpdir(), 'mcp-gate-chromium-'));
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1440, height: 1000 },
    acceptDownloads: true,
    timeout: 30_000,
  });
}

export interface CliRun {
  readonly code: Promise<number>;
  readonly stdout: () => string;
  readonly stderr: () => string;
  stop(): Promise<number>;
}

/** `run(argv, io)` in this process, with real files and a stop signal. */
export function startCli(argv: readonly string[], cwd = repositoryRoot): CliRun {
  const out: string[] = [];
  const err: string[] = [];
  const stop = new AbortController();
  const io: CliIo = {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    readFile: (path) => readFile(path, 'utf8'),
    cwd,
    signal: stop.signal,
  };
  const code = run(argv, io);
  return {
    code,
    stdout: () => out.join(''),
    stderr: () => err.join(''),
    async stop() {
      stop.abort();
      return code;
    },
  };
}

/** Runs a command to its end. */
export async function runCli(argv: readonly string[], cwd = repositoryRoot): Promise<{ code: number; stdout: string; stderr: string }> {
  const started = startCli(argv, cwd);
  const code = await started.code;
  return { code, stdout: started.stdout(), stderr: started.stderr() };
}

/** Waits (bounded) until the command has printed its URL. */
export async function waitForUrl(cli: CliRun, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(cli.stdout());
    if (match) return match[1]!;
    const finished = await Promise.race([cli.code.then((code) => code), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 25))]);
    if (finished !== undefined) throw new Error(`mcp-gate playground exited ${finished}: ${cli.stderr()}`);
  }
  throw new Error(`no URL after ${timeoutMs} ms: ${cli.stdout()} ${cli.stderr()}`);
}
