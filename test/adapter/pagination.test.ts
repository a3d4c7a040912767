import { describe, expect, it } from 'vitest';
import { createPaginator, InvalidCursorError } from '../../src/adapter/pagination.js';
import { PolicyOptionError } from '../../src/core/errors.js';

const items = ['a', 'b', 'c', 'd', 'e'];

describe('createPaginator', () => {
  it('walks a list page by page with opaque cursors', () => {
    const paginator = createPaginator(2, 'secret');
    const first = paginator.page(items, undefined, 'tools|r1|k');
    const second = paginator.page(items, first.nextCursor, 'tools|r1|k');
    const third = paginator.page(items, second.nextCursor, 'tools|r1|k');
    expect([first.items, second.items, third.items]).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(third.nextCursor).toBeUndefined();
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('rejects cursors bound to another list, revision, context or gate, and forged ones', () => {
    const paginator = createPaginator(2, 'secret');
    const cursor = paginator.page(items, undefined, 'tools|r1|k').nextCursor!;
    expect(() => paginator.page(items, cursor, 'tools|r2|k')).toThrow(InvalidCursorError);
    expect(() => paginator.page(items, cursor, 'tools|r1|other')).toThrow('Invalid cursor');
    expect(() => createPaginator(2, 'another secret').page(items, cursor, 'tools|r1|k')).toThrow(InvalidCursorError);
    expect(() => paginator.page(items, btoa('4.0000000000000000'), 'tools|r1|k')).toThrow(InvalidCursorError);
    expect(() => paginator.page(items, '!!', 'tools|r1|k')).toThrow(InvalidCursorError);
  });

  it('returns everything and ignores cursors without a page size', () => {
    expect(createPaginator(undefined).page(items, 'whatever', 'x')).toEqual({ items });
  });

  it('rejects a page size that is not a positive integer, naming the option', () => {
    expect(() => createPaginator(0)).toThrow('mcp-gate: option "pageSize" must be a positive integer, got 0');
    expect(() => createPaginator(1.5)).toThrow(PolicyOptionError);
  });
});
