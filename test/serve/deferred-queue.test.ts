import { describe, expect, it } from 'vitest';
import { deferToIdle } from '../../src/serve/deferred-queue.js';

const nextImmediate = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('deferToIdle', () => {
  it('consumes nothing while the caller runs, then everything queued, in order, in one later turn', async () => {
    const consumed: number[] = [];
    const queue = deferToIdle<number>(
      (item) => consumed.push(item),
      (error) => expect.fail(String(error)),
    );
    queue(1);
    queue(2);
    await Promise.resolve(); // microtasks (the rest of a request's promise chain) still come first
    expect(consumed).toEqual([]);
    queue(3);
    await nextImmediate();
    expect(consumed).toEqual([1, 2, 3]);
    queue(4);
    await nextImmediate();
    expect(consumed).toEqual([1, 2, 3, 4]);
  });

  it('flush consumes what is queued at once, and the turn scheduled before consumes nothing twice', async () => {
    const consumed: string[] = [];
    const queue = deferToIdle<string>(
      (item) => consumed.push(item),
      (error) => expect.fail(String(error)),
    );
    queue('a');
    queue.flush();
    expect(consumed).toEqual(['a']);
    await nextImmediate();
    expect(consumed).toEqual(['a']);
  });

  it('hands a throwing consumer to onError and still consumes the rest', async () => {
    const consumed: string[] = [];
    const errors: unknown[] = [];
    const queue = deferToIdle<string>(
      (item) => {
        if (item === 'bad') throw new Error('cannot write "bad"');
        consumed.push(item);
      },
      (error) => errors.push(error),
    );
    queue('bad');
    queue('good');
    await nextImmediate();
    expect(consumed).toEqual(['good']);
    expect(errors).toEqual([new Error('cannot write "bad"')]);
  });
});
