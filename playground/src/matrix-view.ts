// The matrix as an ARIA grid: rows are primitives, columns contexts. Only the cells in view are
// in the DOM (a 100 × 336 matrix would be 33,600 elements), so a repaint costs the same whatever
// the matrix's size. One cell is in the tab order; arrow keys, Home/End and Page Up/Down move it,
// Enter or Space (or a click) selects it.
import type { PrimitiveMetadata } from '../../src/core/primitive-metadata.js';
import { describeColumn, describeDecider, describeHeaders, describePrimitive, describeScopes, type DecisionTable, type MatrixColumn } from './model.js';

export interface MatrixData {
  readonly rows: readonly PrimitiveMetadata[];
  readonly columns: readonly MatrixColumn[];
  /** 1 visible, 0 hidden, row-major. */
  readonly visible: Uint8Array;
  readonly decisions: DecisionTable;
  /** Against the baseline: 0 same, 1 gains, 2 loses. */
  readonly change: Uint8Array | undefined;
}

export interface MatrixView {
  update(data: MatrixData | undefined): void;
  /** The selected cell, if any. */
  readonly selected: { row: number; column: number } | undefined;
  select(row: number, column: number): void;
}

const cellWidth = 136;
const cellHeight = 26;
const headerHeight = 68;
const rowHeaderWidth = 210;

export function createMatrixView(parent: HTMLElement, onSelect: (row: number, column: number) => void): MatrixView {
  const grid = document.createElement('div');
  grid.className = 'matrix';
  grid.setAttribute('role', 'grid');
  grid.setAttribute('aria-label', 'Who sees what: primitives by request context');
  const sizer = document.createElement('div');
  sizer.className = 'matrix-sizer';
  grid.append(sizer);
  parent.append(grid);

  let data: MatrixData | undefined;
  let active = { row: 0, column: 0 };
  let selected: { row: number; column: number } | undefined;
  let frame = 0;

  grid.addEventListener('scroll', () => {
    if (frame === 0) frame = requestAnimationFrame(() => ((frame = 0), render()));
  });
  grid.addEventListener('click', (event) => {
    const cell = (event.target as HTMLElement).closest<HTMLElement>('[role="gridcell"]');
    if (!cell) return;
    moveTo(Number(cell.dataset.row), Number(cell.dataset.column), true);
    choose();
  });
  grid.addEventListener('keydown', (event) => {
    if (!data) return;
    const pageRows = Math.max(1, Math.floor((grid.clientHeight - headerHeight) / cellHeight) - 1);
    const last = { row: data.rows.length - 1, column: data.columns.length - 1 };
    const moves: Record<string, () => [number, number]> = {
      ArrowUp: () => [active.row - 1, active.column],
      ArrowDown: () => [active.row + 1, active.column],
      ArrowLeft: () => [active.row, active.column - 1],
      ArrowRight: () => [active.row, active.column + 1],
      Home: () => (event.ctrlKey ? [0, 0] : [active.row, 0]),
      End: () => (event.ctrlKey ? [last.row, last.column] : [active.row, last.column]),
      PageUp: () => [active.row - pageRows, active.column],
      PageDown: () => [active.row + pageRows, active.column],
    };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      const [row, column] = move();
      moveTo(Math.min(Math.max(row, 0), last.row), Math.min(Math.max(column, 0), last.column), true);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      choose();
    }
  });

  function choose(): void {
    selected = { ...active };
    render();
    onSelect(active.row, active.column);
  }

  function moveTo(row: number, column: number, focus: boolean): void {
    active = { row, column };
    // Keep the active cell inside the viewport, clear of the sticky headers.
    const top = headerHeight + row * cellHeight;
    const left = rowHeaderWidth + column * cellWidth;
    if (top - headerHeight < grid.scrollTop) grid.scrollTop = top - headerHeight;
    else if (top + cellHeight > grid.scrollTop + grid.clientHeight) grid.scrollTop = top + cellHeight - grid.clientHeight;
    if (left - rowHeaderWidth < grid.scrollLeft) grid.scrollLeft = left - rowHeaderWidth;
    else if (left + cellWidth > grid.scrollLeft + grid.clientWidth) grid.scrollLeft = left + cellWidth - grid.clientWidth;
    render();
    if (focus) sizer.querySelector<HTMLElement>('[tabindex="0"]')?.focus({ preventScroll: true });
  }

  function render(): void {
    const hadFocus = grid.contains(document.activeElement) && document.activeElement !== grid;
    sizer.replaceChildren();
    if (!data || data.rows.length === 0 || data.columns.length === 0) {
      grid.setAttribute('aria-rowcount', '0');
      sizer.style.width = sizer.style.height = '0';
      return;
    }
    const { rows, columns } = data;
    grid.setAttribute('aria-rowcount', String(rows.length + 1));
    grid.setAttribute('aria-colcount', String(columns.length + 1));
    sizer.style.width = `${rowHeaderWidth + columns.length * cellWidth}px`;
    sizer.style.height = `${headerHeight + rows.length * cellHeight}px`;
    const { scrollTop, scrollLeft, clientHeight, clientWidth } = grid;
    const firstRow = Math.max(0, Math.floor(scrollTop / cellHeight));
    const lastRow = Math.min(rows.length - 1, Math.floor((scrollTop + clientHeight) / cellHeight));
    const firstColumn = Math.max(0, Math.floor(scrollLeft / cellWidth));
    const lastColumn = Math.min(columns.length - 1, Math.floor((scrollLeft + clientWidth) / cellWidth));
    // The active cell stays in the DOM even when scrolled away, so focus is never lost.
    const rowIndexes = range(firstRow, lastRow, active.row);
    const columnIndexes = range(firstColumn, lastColumn, active.column);

    const header = element('div', 'matrix-row matrix-header', { role: 'row', 'aria-rowindex': '1' });
    header.style.top = `${scrollTop}px`;
    const corner = element('div', 'matrix-corner', { role: 'columnheader', 'aria-colindex': '1' });
    corner.textContent = `${rows.length} primitives × ${columns.length} contexts`;
    corner.style.left = `${scrollLeft}px`;
    header.append(corner);
    for (const column of columnIndexes) {
      const context = columns[column]!;
      const cell = element('div', 'matrix-column', { role: 'columnheader', 'aria-colindex': String(column + 2), title: describeColumn(context) });
      cell.style.left = `${rowHeaderWidth + column * cellWidth}px`;
      for (const line of [context.profile.id, describeHeaders(context.headers), context.endpoint, describeScopes(context.scopes)]) {
        const span = document.createElement('span');
        span.textContent = line;
        cell.append(span);
      }
      header.append(cell);
    }
    const fragment = document.createDocumentFragment();
    fragment.append(header);
    for (const row of rowIndexes) {
      const line = element('div', 'matrix-row', { role: 'row', 'aria-rowindex': String(row + 2) });
      line.style.top = `${headerHeight + row * cellHeight}px`;
      const name = element('div', 'matrix-primitive', { role: 'rowheader', 'aria-colindex': '1', title: describePrimitive(rows[row]!) });
      name.textContent = describePrimitive(rows[row]!);
      name.style.left = `${scrollLeft}px`;
      line.append(name);
      for (const column of columnIndexes) line.append(renderCell(data, row, column));
      fragment.append(line);
    }
    sizer.append(fragment);
    if (hadFocus) sizer.querySelector<HTMLElement>('[tabindex="0"]')?.focus({ preventScroll: true });
  }

  function renderCell(matrix: MatrixData, row: number, column: number): HTMLElement {
    const index = row * matrix.columns.length + column;
    const visible = matrix.visible[index] === 1;
    const decision = matrix.decisions.decision(row, column);
    const change = matrix.change?.[index] ?? 0;
    const isActive = row === active.row && column === active.column;
    const isSelected = selected !== undefined && row === selected.row && column === selected.column;
    const decider = describeDecider(decision);
    const changeText = change === 1 ? ' (gains: hidden in the baseline)' : change === 2 ? ' (loses: visible in the baseline)' : '';
    const cell = element('div', `matrix-cell ${visible ? 'visible' : 'hidden'}${change === 1 ? ' gains' : change === 2 ? ' loses' : ''}`, {
      role: 'gridcell',
      'aria-colindex': String(column + 2),
      'aria-selected': String(isSelected),
      'aria-label': `${visible ? 'visible' : 'hidden'}, ${decider}${changeText}`,
      tabindex: isActive ? '0' : '-1',
      title: `${describePrimitive(matrix.rows[row]!)} for ${describeColumn(matrix.columns[column]!)}: ${decision.message}${changeText}`,
    });
    cell.dataset.row = String(row);
    cell.dataset.column = String(column);
    cell.style.left = `${rowHeaderWidth + column * cellWidth}px`;
    // Shape and text, not colour alone: a check or a cross, the decider, and an arrow for a change.
    const mark = change === 1 ? '▲' : change === 2 ? '▼' : '';
    cell.textContent = `${visible ? '✓' : '✕'} ${mark}${mark ? ' ' : ''}${decider}`;
    return cell;
  }

  return {
    update(next) {
      data = next;
      if (data) active = { row: Math.min(active.row, Math.max(0, data.rows.length - 1)), column: Math.min(active.column, Math.max(0, data.columns.length - 1)) };
      if (selected && data && (selected.row >= data.rows.length || selected.column >= data.columns.length)) selected = undefined;
      render();
    },
    get selected() {
      return selected;
    },
    select(row, column) {
      moveTo(row, column, false);
      choose();
    },
  };
}

function range(first: number, last: number, extra: number): number[] {
  const indexes: number[] = [];
  if (extra < first) indexes.push(extra);
  for (let index = first; index <= last; index++) indexes.push(index);
  if (extra > last) indexes.push(extra);
  return indexes;
}

function element(tag: string, className: string, attributes: Record<string, string>): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}
