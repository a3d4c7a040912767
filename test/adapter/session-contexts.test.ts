import { describe, expect, it } from 'vitest';
import { createRequestContext } from '../../src/core/context.js';
import { SessionContexts } from '../../src/adapter/list-changes.js';

const context = createRequestContext({ request: { method: 'tools/list' } });

/** Sessions as plain records whose `open` flag a test flips, as a host closing them would. */
function tracker() {
  const sessions: Array<{ id: number; open: boolean }> = [];
  const contexts = new SessionContexts<{ id: number; open: boolean }>((session) => session.open);
  const openOne = () => {
    const session = { id: sessions.length, open: true };
    sessions.push(session);
    contexts.observe(session, context);
    return session;
  };
  const openCount = () => sessions.filter((session) => session.open).length;
  return { sessions, contexts, openOne, openCount };
}

describe('SessionContexts', () => {
  it('keeps closed sessions to a bounded slack while a host evicts one per new session', () => {
    const { sessions, contexts, openOne, openCount } = tracker();
    for (let index = 0; index < 1000; index++) openOne();
    let mostTracked = 0;
    // As `serve --max-sessions 1000` does: each new session closes the least recently used one.
    for (let index = 0; index < 9000; index++) {
      sessions[index]!.open = false;
      openOne();
      mostTracked = Math.max(mostTracked, contexts.size);
    }
    expect(openCount()).toBe(1000);
    // At most 1/16 of the open sessions (at least 64) beyond them: 1,063 here, not 2,000.
    expect(mostTracked).toBeLessThanOrEqual(1000 + Math.ceil(1000 / 16));
    expect(mostTracked).toBeGreaterThan(1000);
  });

  it('lists only open sessions, and forgets closed ones as it lists', () => {
    const { sessions, contexts, openOne } = tracker();
    for (let index = 0; index < 10; index++) openOne();
    for (const session of sessions.slice(0, 4)) session.open = false;
    expect([...contexts.open()].map(([session]) => session.id)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(contexts.size).toBe(6);
  });

  it('tracks a session again after it was forgotten, even with the context it had', () => {
    const { contexts, openOne } = tracker();
    const session = openOne();
    contexts.observe(session, context);
    session.open = false;
    expect([...contexts.open()]).toEqual([]);
    // Reconnected (an McpServer may connect again after closing) and asking with the same reused context.
    session.open = true;
    contexts.observe(session, context);
    expect([...contexts.open()]).toEqual([[session, context]]);
  });

  it("records a session's newer context, and another session's context, after a repeated one", () => {
    const { contexts, openOne } = tracker();
    const [first, second] = [openOne(), openOne()];
    const newer = createRequestContext({ request: { method: 'tools/call' } });
    contexts.observe(first, newer);
    contexts.observe(first, newer);
    contexts.observe(second, newer);
    expect([...contexts.open()]).toEqual([
      [first, newer],
      [second, newer],
    ]);
  });
});
