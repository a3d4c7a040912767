// The playground in a real browser (Debian's chromium through playwright-core): served by
// `mcp-gate playground` and opened from the static build over file://. Every cell in view is
// compared with what the core decides in this process, the exported cases run through
// `mcp-gate test`, and a screenshot is taken (UPDATE_SCREENSHOT=1 keeps it as docs/playground.png).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { clientProfiles } from '../../src/profiles/client-profiles.js';
import {
  buildColumns,
  DecisionTable,
  describeDecider,
  diffVisibility,
  evaluateVisibility,
  toMetadata,
  type ManifestPrimitive,
  type PlaygroundState,
} from '../../playground/src/model.js';
import { buildDistOnce, builtPage } from '../built-dist.js';
import { launchChromium, repositoryRoot, runCli, startCli, waitForUrl, type CliRun, type PageGlobals } from './browser.js';

const demoPolicyText = readFileSync(join(repositoryRoot, 'policies', 'demo.json'), 'utf8');
const demoPrimitives = (JSON.parse(readFileSync(join(repositoryRoot, 'policies', 'demo.manifest.json'), 'utf8')) as { primitives: ManifestPrimitive[] }).primitives;
/** The demo policy with the canary header's value changed from "1" to "yes". */
const editedPolicyText = demoPolicyText.replace('{ "!==": [{ "var": "request.headers.x-canary" }, "1"] }', '{ "!==": [{ "var": "request.headers.x-canary" }, "yes"] }');

let browser: BrowserContext;
let page: Page;
let cli: CliRun;
let url: string;
let workDirectory: string;
let policyPath: string;

interface RenderedCell {
  readonly row: number;
  readonly column: number;
  readonly text: string;
  readonly label: string;
}

function renderedCells(on: Page): Promise<RenderedCell[]> {
  return on.evaluate(() =>
    [...(globalThis as unknown as PageGlobals).document.querySelectorAll('#matrix [role="gridcell"]')].map((cell) => ({
      row: Number(cell.dataset.row),
      column: Number(cell.dataset.column),
      text: cell.textContent ?? '',
      label: cell.getAttribute('aria-label') ?? '',
    })),
  );
}

/** What a cell must show, from the core in this process: a check or a cross, a change arrow, the decider. */
function expectedCells(state: Pick<PlaygroundState, 'headerSets' | 'endpoints' | 'scopeSets' | 'primitives'>, policyText: string, baselineText: string) {
  const columns = buildColumns(state, clientProfiles);
  const rows = state.primitives.map(toMetadata);
  const policy = compilePolicy(JSON.parse(policyText));
  const visible = evaluateVisibility(policy, rows, columns);
  const diff = diffVisibility(evaluateVisibility(compilePolicy(JSON.parse(baselineText)), rows, columns), visible, columns);
  const table = new DecisionTable(policy, rows, columns);
  const text = (row: number, column: number) => {
    const index = row * columns.length + column;
    const mark = diff.change[index] === 1 ? '▲ ' : diff.change[index] === 2 ? '▼ ' : '';
    return `${visible[index] === 1 ? '✓' : '✕'} ${mark}${describeDecider(table.decision(row, column))}`;
  };
  return { columns, rows, policy, diff, text };
}

const waitForUpdate = (on: Page, after: number) =>
  on.waitForFunction((count) => ((globalThis as unknown as PageGlobals).mcpGatePlayground?.updates ?? 0) > count, after, { timeout: 10_000 });
const updatesOf = (on: Page) => on.evaluate(() => (globalThis as unknown as PageGlobals).mcpGatePlayground?.updates ?? 0);

/** Replaces the policy the way a person pastes one: select all in the editor, then insert. */
async function typePolicy(on: Page, text: string): Promise<void> {
  await on.click('#policy-editor .cm-content');
  await on.keyboard.press('Control+A');
  await on.keyboard.insertText(text);
}

async function editAndWait(on: Page, text: string): Promise<void> {
  const before = await updatesOf(on);
  await typePolicy(on, text);
  await waitForUpdate(on, before);
}

beforeAll(async () => {
  workDirectory = mkdtempSync(join(tmpdir(), 'mcp-gate-playground-'));
  policyPath = join(workDirectory, 'team-policy.json');
  writeFileSync(policyPath, demoPolicyText);
  const [built] = await Promise.all([buildDistOnce(), launchChromium().then((context) => (browser = context))]);
  expect(built, 'npm run build --noCheck').toBe('');
  cli = startCli(['playground', '--policy', policyPath, '--manifest', 'policies/demo.manifest.json', '--port', '0']);
  url = await waitForUrl(cli);
  page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(url);
  await page.waitForSelector('#status[data-state="ok"]', { timeout: 15_000 });
  expect(problems).toEqual([]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (cli) expect(await cli.stop()).toBe(0);
});

describe('mcp-gate playground in chromium', () => {
  it('prints its URL on 127.0.0.1 and preloads the policy file and the manifest', async () => {
    expect(cli.stdout()).toBe(`mcp-gate playground: ${url} (policy ${policyPath}, 13 primitives from policies/demo.manifest.json); Ctrl-C stops\n`);
    const revision = compilePolicy(JSON.parse(demoPolicyText)).revision;
    expect(await page.getAttribute('#status', 'data-revision')).toBe(revision);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).mcpGatePlayground!.state().policyFile)).toBe('team-policy.json');
    expect(await page.textContent('#axes-summary')).toBe(
      `${clientProfiles.length} client profiles × 2 header sets × 2 endpoints × 1 scope sets = ${clientProfiles.length * 4} contexts; 13 primitives.`,
    );
  });

  it('shows every cell in view as the core decides it, as text and shape, in an ARIA grid', async () => {
    const state = await page.evaluate(() => (globalThis as unknown as PageGlobals).mcpGatePlayground!.state());
    const expected = expectedCells(state, demoPolicyText, demoPolicyText);
    const cells = await renderedCells(page);
    expect(cells.length).toBeGreaterThan(50);
    for (const cell of cells) expect(cell.text, `cell ${cell.row},${cell.column}`).toBe(expected.text(cell.row, cell.column));
    // deploy_preview (row 2) for the first client, no headers, /mcp: hidden by the canary rule.
    expect(cells.find((cell) => cell.row === 2 && cell.column === 0)).toMatchObject({ text: '✕ canary-needs-header', label: 'hidden, canary-needs-header' });
    expect(await page.getAttribute('#matrix [role="grid"]', 'aria-rowcount')).toBe('14');
    expect(await page.getAttribute('#matrix [role="grid"]', 'aria-colcount')).toBe(String(expected.columns.length + 1));
  });

  it("draws the compiler's errors and warnings at their paths as you type", async () => {
    const before = await updatesOf(page);
    await typePolicy(page, demoPolicyText.replace('"!==": [{ "var": "request.headers.x-canary" }', '"!===": [{ "var": "request.headers.x-canary" }'));
    await page.waitForSelector('#status[data-state="invalid"]');
    await page.waitForSelector('.cm-lintRange-error', { timeout: 5_000 });
    expect(await page.textContent('.cm-lintRange-error')).toBe('"!==="');
    expect(await page.getAttribute('#matrix [role="grid"]', 'class')).toBe('matrix');
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.getElementById('matrix')!.classList.contains('stale'))).toBe(true);

    await typePolicy(page, demoPolicyText.replace('"request.headers.x-canary" }, "1"', '"request.headers.X-Canary" }, "1"'));
    await waitForUpdate(page, before);
    await page.waitForSelector('.cm-lintRange-warning', { timeout: 5_000 });
    expect(await page.textContent('.cm-lintRange-warning')).toBe('"request.headers.X-Canary"');
    expect(await page.$('.cm-lintRange-error')).toBeNull();
  });

  it('re-evaluates on an edit and counts who gains and who loses against the file on disk', async () => {
    await editAndWait(page, editedPolicyText);
    const state = await page.evaluate(() => (globalThis as unknown as PageGlobals).mcpGatePlayground!.state());
    expect(state.policy).toBe(editedPolicyText);
    expect(state.baseline).toBe(demoPolicyText);
    const expected = expectedCells(state, editedPolicyText, demoPolicyText);
    expect(await page.getAttribute('#status', 'data-revision')).toBe(expected.policy.revision);
    // x-canary: 1 no longer opens deploy_preview: one cell lost per client and endpoint.
    expect(expected.diff).toMatchObject({ gained: 0, lost: clientProfiles.length * 2 });
    const diffText = await page.textContent('#diff');
    expect(diffText).toContain(
      `Against the baseline: 0 cells gain a primitive (▲), ${clientProfiles.length * 2} lose one (▼); 0 clients gain, ${clientProfiles.length} clients lose.`,
    );
    expect(diffText).toContain(`tool deploy_preview: −${clientProfiles.length * 2} contexts`);
    // Scroll to the first lost cell: client 0, x-canary: 1, /mcp is column 2.
    const cells = await renderedCells(page);
    for (const cell of cells) expect(cell.text, `cell ${cell.row},${cell.column}`).toBe(expected.text(cell.row, cell.column));
    expect(cells.find((cell) => cell.row === 2 && cell.column === 2)).toMatchObject({
      text: '✕ ▼ canary-needs-header',
      label: 'hidden, canary-needs-header (loses: visible in the baseline)',
    });
  });

  it('explains the cell chosen with the keyboard, clause by clause', async () => {
    await page.click('#matrix [role="gridcell"][data-row="0"][data-column="0"]');
    for (const key of ['ArrowDown', 'ArrowDown', 'ArrowRight', 'ArrowRight', 'ArrowLeft']) await page.keyboard.press(key);
    expect(
      await page.evaluate(() => [
        (globalThis as unknown as PageGlobals).document.activeElement!.dataset.row,
        (globalThis as unknown as PageGlobals).document.activeElement!.dataset.column,
      ]),
    ).toEqual(['2', '1']);
    await page.keyboard.press('Enter');
    expect(await page.getAttribute('#matrix [data-row="2"][data-column="1"]', 'aria-selected')).toBe('true');
    const verdict = await page.textContent('#explain [data-testid="verdict"]');
    expect(verdict).toBe('✕ hidden — rule canary-needs-header: denied by rule "canary-needs-header": canary primitives only for requests with x-canary: 1');
    const clauses = await page.evaluate(() =>
      Object.fromEntries(
        [...(globalThis as unknown as PageGlobals).document.querySelectorAll('#explain .clause[data-path]')].map((clause) => [clause.dataset.path, clause.textContent]),
      ),
    );
    expect(clauses).toEqual({
      'rules[0].when': '✓ {"!==":[{"var":"request.headers.x-canary"},"yes"]} = true → true',
      'rules[0].when["!=="][0]': '✕ {"var":"request.headers.x-canary"} = null → false',
    });
    const rules = await page.evaluate(() => [...(globalThis as unknown as PageGlobals).document.querySelectorAll('#explain .rule-title')].map((title) => title.textContent));
    expect(rules).toEqual([
      '▶ deny canary-needs-header — decided: deny',
      'deny beta-testers-only — does not apply (appliesTo)',
      'deny admin-endpoint-only — does not apply (appliesTo)',
      'deny search-v2-header-or-rollout — does not apply (appliesTo)',
    ]);
    // The screenshot goes to the temp folder on every run (a run leaves the work tree as it was);
    // UPDATE_SCREENSHOT=1 writes docs/playground.png, the one docs/playground.md shows.
    const screenshotFolder = process.env['UPDATE_SCREENSHOT'] === '1' ? join(repositoryRoot, 'docs') : workDirectory;
    mkdirSync(screenshotFolder, { recursive: true });
    await page.screenshot({ path: join(screenshotFolder, 'playground.png'), fullPage: true });
  });

  it('marks the rules that decided nothing anywhere in the matrix', async () => {
    await page.waitForSelector('#coverage[data-state="done"]');
    const coverage = await page.evaluate(() =>
      [...(globalThis as unknown as PageGlobals).document.querySelectorAll('#coverage li')].map((item) => `${item.className}: ${item.textContent}`),
    );
    expect(coverage).toEqual([
      `used: canary-needs-header: decided ${clientProfiles.length * 4} cells`,
      expect.stringMatching(/^used: beta-testers-only: decided \d+ cells$/),
      'unused: ⚠ admin-endpoint-only: decided nothing anywhere in the matrix',
      expect.stringMatching(/^used: search-v2-header-or-rollout: decided \d+ cells$/),
    ]);
  });

  it('exports the matrix as a cases file that mcp-gate test passes unchanged', async () => {
    const out = join(workDirectory, 'export');
    mkdirSync(out);
    const [policyDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-policy')]);
    expect(policyDownload.suggestedFilename()).toBe('team-policy.json');
    await policyDownload.saveAs(join(out, 'team-policy.json'));
    const [casesDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-cases')]);
    expect(casesDownload.suggestedFilename()).toBe('team-policy.cases.json');
    const casesPath = join(out, 'team-policy.cases.json');
    await casesDownload.saveAs(casesPath);
    expect(readFileSync(join(out, 'team-policy.json'), 'utf8')).toBe(editedPolicyText);
    const cells = 13 * clientProfiles.length * 4;
    expect(await runCli(['test', casesPath])).toEqual({ code: 0, stdout: `${cells} passed, 0 failed\n`, stderr: '' });
    // The cases pin this policy: against the file on disk, the lost cells fail.
    writeFileSync(join(out, 'team-policy.json'), demoPolicyText);
    const againstBaseline = await runCli(['test', casesPath]);
    expect(againstBaseline.code).toBe(1);
    expect(againstBaseline.stdout).toContain(`${cells - clientProfiles.length * 2} passed, ${clientProfiles.length * 2} failed`);
  });

  it('carries the whole state in the share link', async () => {
    const before = await updatesOf(page);
    await page.fill('#add-header-set input', 'x-tool-version: 2');
    await page.click('#add-header-set button');
    await waitForUpdate(page, before);
    await page.click('#share');
    // The link is written once the state is compressed (CompressionStream is asynchronous).
    await page.waitForSelector('#share-url:not([hidden])', { timeout: 10_000 });
    const link = await page.inputValue('#share-url');
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#s=[\w-]+$/);
    const state = await page.evaluate(() => (globalThis as unknown as PageGlobals).mcpGatePlayground!.state());
    expect(state.headerSets).toEqual([{ headers: {} }, { headers: { 'x-canary': '1' } }, { headers: { 'x-tool-version': '2' } }]);

    const shared = await browser.newPage();
    await shared.goto(link);
    await shared.waitForSelector('#status[data-state="ok"]');
    expect(await shared.evaluate(() => (globalThis as unknown as PageGlobals).mcpGatePlayground!.state())).toEqual(state);
    expect(await shared.evaluate(() => (globalThis as unknown as PageGlobals).mcpGatePlayground!.editor.state.doc.toString())).toBe(editedPolicyText);
    expect(await shared.getAttribute('#status', 'data-revision')).toBe(await page.getAttribute('#status', 'data-revision'));
    expect((await renderedCells(shared)).map((cell) => cell.text)).toEqual((await renderedCells(page)).map((cell) => cell.text));
    await shared.close();
  }, 40_000);

  it('re-evaluates and repaints 42+ profiles × 4 header sets × 2 endpoints × 100 primitives after an edit', async () => {
    const primitives = Array.from({ length: 100 }, (_, index) => {
      const base = demoPrimitives[index % demoPrimitives.length]!;
      if (index < demoPrimitives.length) return base;
      return { ...base, name: `${base.name}_${index}`, ...(base.uri === undefined ? {} : { uri: `${base.uri}/${index}` }) };
    });
    let before = await updatesOf(page);
    await page.click('summary:has-text("Primitives (manifest)")');
    await page.fill('#manifest', JSON.stringify({ primitives }));
    await page.click('#apply-manifest');
    await waitForUpdate(page, before);
    before = await updatesOf(page);
    await page.fill('#add-header-set input', 'x-tool-version: 1');
    await page.click('#add-header-set button');
    await waitForUpdate(page, before);
    const state = await page.evaluate(() => (globalThis as unknown as PageGlobals).mcpGatePlayground!.state());
    expect([state.headerSets.length, state.endpoints.length, state.scopeSets.length, state.primitives.length]).toEqual([4, 2, 1, 100]);

    const timings: Array<{ cells: number; evaluateMs: number; renderMs: number; totalMs: number }> = [];
    // Each text is new to the page (trailing spaces), so every edit compiles as well.
    const edits = [demoPolicyText, editedPolicyText, demoPolicyText, editedPolicyText, demoPolicyText].map((text, index) => `${text}${' '.repeat(index + 1)}`);
    for (const text of edits) {
      await editAndWait(page, text);
      timings.push((await page.evaluate(() => (globalThis as unknown as PageGlobals).mcpGatePlayground!.lastUpdate))!);
    }
    const cells = clientProfiles.length * 4 * 2 * 100;
    expect(timings.every((timing) => timing.cells === cells)).toBe(true);
    const expected = expectedCells(state, demoPolicyText, demoPolicyText);
    for (const cell of await renderedCells(page)) expect(cell.text).toBe(expected.text(cell.row, cell.column));
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const format = (pick: (timing: (typeof timings)[number]) => number) => `${median(timings.map(pick)).toFixed(1)} ms`;
    console.log(
      `playground, ${cells.toLocaleString('en')} cells (${clientProfiles.length} profiles × 4 header sets × 2 endpoints × 100 primitives), median of ${timings.length} edits: ` +
        `evaluate ${format((timing) => timing.evaluateMs)}, render ${format((timing) => timing.renderMs)}, edit to next frame ${format((timing) => timing.totalMs)} ` +
        `(each: ${timings.map((timing) => timing.totalMs.toFixed(1)).join(', ')} ms)`,
    );
  }, 90_000);
});

describe('the static build in chromium', () => {
  it('works offline from file://: one bundled script, the demo preloaded, keyboard and explain', async () => {
    const offline = await browser.newPage();
    const requests: string[] = [];
    offline.on('request', (request) => requests.push(request.url()));
    await offline.goto(pathToFileURL(join(builtPage, 'index.html')).href);
    await offline.waitForSelector('#status[data-state="ok"]', { timeout: 15_000 });
    expect(requests.filter((request) => !/^(file|data|blob):/.test(request))).toEqual([]);
    expect(await offline.getAttribute('#status', 'data-revision')).toBe(compilePolicy(JSON.parse(demoPolicyText)).revision);
    const state = await offline.evaluate(() => (globalThis as unknown as PageGlobals).mcpGatePlayground!.state());
    expect(state.primitives).toEqual(demoPrimitives);
    const expected = expectedCells(state, demoPolicyText, demoPolicyText);
    for (const cell of await renderedCells(offline)) expect(cell.text).toBe(expected.text(cell.row, cell.column));
    await offline.click('#matrix [role="gridcell"][data-row="4"][data-column="0"]');
    await offline.keyboard.press('End');
    const last = String(expected.columns.length - 1);
    expect(await offline.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement!.dataset.column)).toBe(last);
    await offline.keyboard.press(' ');
    expect(await offline.textContent('#explain [data-testid="verdict"]')).toMatch(/^✕ hidden — requirement: requires client capability "sampling"|^✓ visible/);
    await offline.close();
  }, 40_000);
});
