// The playground page: state in, editor and matrix out. State comes from the share link's
// fragment, else from what `mcp-gate playground` preloaded into the page, else the demo files.
import type { EditorView } from '@codemirror/view';
import demoManifest from '../../policies/demo.manifest.json';
import demoPolicyText from '../../policies/demo.json?text';
import type { PrimitiveMetadata } from '../../src/core/primitive-metadata.js';
import { clientProfiles } from '../../src/profiles/client-profiles.js';
import { createPolicyEditor } from './editor.js';
import { renderExplain } from './explain-view.js';
import { createMatrixView, type MatrixData } from './matrix-view.js';
import {
  buildColumns,
  compilePolicyText,
  countDeciders,
  DecisionTable,
  describeHeaders,
  describePrimitive,
  describeScopes,
  diffVisibility,
  evaluateVisibility,
  toCasesFile,
  toMetadata,
  type Compiled,
  type ManifestPrimitive,
  type MatrixColumn,
  type PlaygroundState,
} from './model.js';
import { decodeState, encodeState } from './share.js';

interface UpdateTiming {
  readonly cells: number;
  /** Compile, evaluate every cell, diff against the baseline. */
  readonly evaluateMs: number;
  /** Build the grid's DOM for the cells in view, and lay it out. */
  readonly renderMs: number;
  /** From the start of the update to the next animation frame after it (the repaint). */
  readonly totalMs: number;
}

declare global {
  interface Window {
    /** For tests and the curious: the timings of the last update, and the page's state. */
    mcpGatePlayground?: { lastUpdate?: UpdateTiming; updates: number; state(): PlaygroundState; editor: EditorView };
  }
}

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

function readPreload(): Partial<PlaygroundState> | undefined {
  const script = document.getElementById('mcp-gate-preload');
  if (!script?.textContent) return undefined;
  return JSON.parse(script.textContent) as Partial<PlaygroundState>;
}

function defaultState(preload: Partial<PlaygroundState> | undefined): PlaygroundState {
  const policy = preload?.policy ?? demoPolicyText;
  return {
    policy,
    baseline: preload?.baseline ?? policy,
    policyFile: preload?.policyFile ?? 'demo.json',
    primitives: preload?.primitives ?? (demoManifest.primitives as ManifestPrimitive[]),
    headerSets: preload?.headerSets ?? [{ headers: {} }, { headers: { 'x-canary': '1' } }],
    endpoints: preload?.endpoints ?? ['/mcp', '/mcp/admin'],
    scopeSets: preload?.scopeSets ?? [[]],
  };
}

/** Compiling twice per keystroke (linter and matrix) would waste half the budget: one per text. */
const compiledTexts = new Map<string, Compiled>();
function compileCached(text: string): Compiled {
  let compiled = compiledTexts.get(text);
  if (!compiled) {
    if (compiledTexts.size > 8) compiledTexts.clear();
    compiled = compilePolicyText(text);
    compiledTexts.set(text, compiled);
  }
  return compiled;
}

async function start(): Promise<void> {
  const fromLink = await decodeState(location.hash);
  let state: PlaygroundState = fromLink ?? defaultState(readPreload());
  let rows: PrimitiveMetadata[] = [];
  let columns: MatrixColumn[] = [];
  let baselineVisibility: { text: string; visible: Uint8Array } | undefined;
  let shown: { compiled: Extract<Compiled, { ok: true }>; data: MatrixData } | undefined;
  let generation = 0;
  let updates = 0;

  const matrix = createMatrixView(byId('matrix'), (row, column) => showExplain(row, column));

  const editor = createPolicyEditor({
    parent: byId('policy-editor'),
    text: state.policy,
    label: 'Policy (JSON)',
    compile: compileCached,
    onChange: (text) => {
      state = { ...state, policy: text };
      update();
    },
  });
  createPolicyEditor({
    parent: byId('baseline-editor'),
    text: state.baseline,
    label: 'Baseline policy to compare with (JSON)',
    compile: compileCached,
    onChange: (text) => {
      state = { ...state, baseline: text };
      update();
    },
  });

  function rebuildAxes(): void {
    columns = buildColumns(state, clientProfiles);
    const problems: string[] = [];
    rows = state.primitives.flatMap((primitive, index) => {
      try {
        return [toMetadata(primitive)];
      } catch (error) {
        problems.push(`primitives[${index}]: ${error instanceof Error ? error.message : String(error)}`);
        return [];
      }
    });
    byId('manifest-problems').textContent = problems.join('\n');
    baselineVisibility = undefined;
    renderAxisControls();
  }

  function update(): void {
    const started = performance.now();
    const thisUpdate = ++generation;
    const compiled = compileCached(state.policy);
    const status = byId('status');
    if (!compiled.ok) {
      status.textContent = `The policy has ${compiled.issues.length === 1 ? 'a problem' : `${compiled.issues.length} problems`} (see the editor); the matrix shows the last valid policy.`;
      status.dataset.state = 'invalid';
      byId('matrix').classList.add('stale');
      scheduleShare();
      return;
    }
    byId('matrix').classList.remove('stale');
    const visible = evaluateVisibility(compiled.policy, rows, columns);
    const baseline = compileCached(state.baseline);
    let change: Uint8Array | undefined;
    let diffText = 'The baseline policy has problems: no comparison.';
    if (baseline.ok) {
      if (baselineVisibility?.text !== state.baseline) baselineVisibility = { text: state.baseline, visible: evaluateVisibility(baseline.policy, rows, columns) };
      const diff = diffVisibility(baselineVisibility.visible, visible, columns);
      change = diff.change;
      diffText = renderDiff(diff);
    }
    const data: MatrixData = { rows, columns, visible, decisions: new DecisionTable(compiled.policy, rows, columns), change };
    const evaluated = performance.now();
    matrix.update(data);
    byId('matrix').getBoundingClientRect();
    const rendered = performance.now();
    shown = { compiled, data };
    byId('diff').textContent = diffText;
    if (matrix.selected) showExplain(matrix.selected.row, matrix.selected.column);
    computeCoverage(thisUpdate, data, compiled);
    scheduleShare();
    requestAnimationFrame(() => {
      const timing: UpdateTiming = {
        cells: rows.length * columns.length,
        evaluateMs: evaluated - started,
        renderMs: rendered - evaluated,
        totalMs: performance.now() - started,
      };
      updates++;
      window.mcpGatePlayground!.lastUpdate = timing;
      window.mcpGatePlayground!.updates = updates;
      status.dataset.state = 'ok';
      status.dataset.revision = compiled.policy.revision;
      status.textContent = `Policy revision ${compiled.policy.revision}: ${timing.cells.toLocaleString('en')} cells evaluated and repainted in ${timing.totalMs.toFixed(1)} ms.`;
    });
  }

  function renderDiff(diff: ReturnType<typeof diffVisibility>): string {
    if (diff.gained === 0 && diff.lost === 0) return 'Same as the baseline: no cell changes.';
    const primitiveLines = diff.byPrimitive.map(
      ({ row, gained, lost }) =>
        `${describePrimitive(rows[row]!)}: ${gained > 0 ? `+${gained} contexts` : ''}${gained > 0 && lost > 0 ? ', ' : ''}${lost > 0 ? `−${lost} contexts` : ''}`,
    );
    const gainers = diff.byProfile.filter((entry) => entry.gained > 0).length;
    const losers = diff.byProfile.filter((entry) => entry.lost > 0).length;
    return [
      `Against the baseline: ${diff.gained} cells gain a primitive (▲), ${diff.lost} lose one (▼); ${gainers} clients gain, ${losers} clients lose.`,
      ...primitiveLines,
    ].join('\n');
  }

  /** Coverage needs the deciding rule of every cell: computed in slices after the repaint. */
  function computeCoverage(forUpdate: number, data: MatrixData, compiled: Extract<Compiled, { ok: true }>): void {
    const target = byId('coverage');
    target.dataset.state = 'computing';
    const width = data.columns.length;
    const total = data.rows.length * width;
    const counts = new Map<string, number>();
    let next = 0;
    const slice = () => {
      if (forUpdate !== generation) return;
      const end = Math.min(total, next + 4000);
      countDeciders(data.decisions, data.rows.length, width, next, end, counts);
      next = end;
      if (next < total) return void setTimeout(slice, 0);
      const items = compiled.policy.rules.map((rule) => {
        const decided = counts.get(rule.id) ?? 0;
        const item = document.createElement('li');
        item.className = decided === 0 ? 'unused' : 'used';
        item.dataset.rule = rule.id;
        item.textContent = decided === 0 ? `⚠ ${rule.id}: decided nothing anywhere in the matrix` : `${rule.id}: decided ${decided} cells`;
        return item;
      });
      target.replaceChildren(...items);
      target.dataset.state = 'done';
    };
    setTimeout(slice, 0);
  }

  function showExplain(row: number, column: number): void {
    if (!shown) return;
    const primitive = rows[row];
    const context = columns[column];
    if (!primitive || !context) return;
    renderExplain(byId('explain'), primitive, context, shown.compiled.tracer.trace(context.context, primitive));
  }

  let shareTimer: ReturnType<typeof setTimeout> | undefined;
  function scheduleShare(): void {
    clearTimeout(shareTimer);
    shareTimer = setTimeout(() => void writeShareLink(), 400);
  }
  async function writeShareLink(): Promise<string> {
    const fragment = await encodeState(state);
    history.replaceState(null, '', fragment);
    return location.href;
  }

  function renderAxisControls(): void {
    const chips = <T>(id: string, items: readonly T[], describe: (item: T) => string, remove: (index: number) => void) => {
      byId(id).replaceChildren(
        ...items.map((item, index) => {
          const chip = document.createElement('li');
          chip.textContent = describe(item);
          const button = document.createElement('button');
          button.type = 'button';
          button.textContent = '×';
          button.setAttribute('aria-label', `remove ${describe(item)}`);
          button.disabled = items.length === 1;
          button.addEventListener('click', () => remove(index));
          chip.append(button);
          return chip;
        }),
      );
    };
    chips(
      'header-sets',
      state.headerSets,
      (set) => describeHeaders(set.headers),
      (index) => changeAxes({ headerSets: state.headerSets.filter((_, at) => at !== index) }),
    );
    chips(
      'endpoints',
      state.endpoints,
      (endpoint) => endpoint,
      (index) => changeAxes({ endpoints: state.endpoints.filter((_, at) => at !== index) }),
    );
    chips('scope-sets', state.scopeSets, describeScopes, (index) => changeAxes({ scopeSets: state.scopeSets.filter((_, at) => at !== index) }));
    byId('axes-summary').textContent =
      `${clientProfiles.length} client profiles × ${state.headerSets.length} header sets × ${state.endpoints.length} endpoints × ${state.scopeSets.length} scope sets = ${columns.length} contexts; ${rows.length} primitives.`;
  }

  function changeAxes(change: Partial<PlaygroundState>): void {
    state = { ...state, ...change };
    rebuildAxes();
    update();
  }

  const onSubmit = (id: string, read: (value: string) => Partial<PlaygroundState> | string) => {
    byId<HTMLFormElement>(id).addEventListener('submit', (event) => {
      event.preventDefault();
      const input = byId<HTMLFormElement>(id).querySelector('input')!;
      const result = read(input.value.trim());
      const problem = byId<HTMLFormElement>(id).querySelector('.problem')!;
      if (typeof result === 'string') {
        problem.textContent = result;
        return;
      }
      problem.textContent = '';
      input.value = '';
      changeAxes(result);
    });
  };
  onSubmit('add-header-set', (value) => {
    const headers: Record<string, string> = {};
    for (const part of value.split(',').filter((entry) => entry.trim() !== '')) {
      const colon = part.indexOf(':');
      if (colon <= 0) return `"${part.trim()}" is not "name: value"`;
      headers[part.slice(0, colon).trim().toLowerCase()] = part.slice(colon + 1).trim();
    }
    return { headerSets: [...state.headerSets, { headers }] };
  });
  onSubmit('add-endpoint', (value) =>
    value === '' || value.startsWith('/') ? { endpoints: [...state.endpoints, value] } : `an endpoint is a URL path starting with "/" (or empty for stdio)`,
  );
  onSubmit('add-scopes', (value) => ({ scopeSets: [...state.scopeSets, value.split(/[\s,]+/).filter((scope) => scope !== '')] }));

  const manifestInput = byId<HTMLTextAreaElement>('manifest');
  manifestInput.value = JSON.stringify({ primitives: state.primitives }, null, 2);
  byId('apply-manifest').addEventListener('click', () => {
    try {
      const parsed = JSON.parse(manifestInput.value) as { primitives?: unknown };
      if (!Array.isArray(parsed.primitives)) throw new Error('expected {"primitives": […]}');
      byId('manifest-problems').textContent = '';
      changeAxes({ primitives: parsed.primitives as ManifestPrimitive[] });
    } catch (error) {
      byId('manifest-problems').textContent = `manifest: ${error instanceof Error ? error.message : String(error)}`;
    }
  });

  byId('share').addEventListener('click', async () => {
    const link = await writeShareLink();
    const output = byId<HTMLInputElement>('share-url');
    output.value = link;
    output.hidden = false;
    output.select();
    await navigator.clipboard?.writeText(link).catch(() => undefined);
  });
  const download = (name: string, text: string) => {
    const anchor = document.createElement('a');
    anchor.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    anchor.download = name;
    anchor.click();
    setTimeout(() => URL.revokeObjectURL(anchor.href), 10_000);
  };
  byId('export-cases').addEventListener('click', () => {
    if (!shown) return;
    const file = toCasesFile(state, shown.data.decisions, rows, columns);
    download(state.policyFile.replace(/\.json$/, '') + '.cases.json', `${JSON.stringify(file, null, 2)}\n`);
  });
  byId('export-policy').addEventListener('click', () => download(state.policyFile, state.policy.endsWith('\n') ? state.policy : `${state.policy}\n`));

  window.mcpGatePlayground = { updates: 0, state: () => state, editor };
  rebuildAxes();
  update();
}

void start();
