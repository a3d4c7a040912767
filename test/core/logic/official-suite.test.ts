import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileLogic } from '../../../src/core/logic/compile.js';

// test/fixtures/jsonlogic-tests.json: the official JsonLogic suite (jsonlogic.com/tests.json,
// MIT, JsonLogic project), copied from ../shared/vectors/jsonlogic/tests.json.
const suite: unknown[] = JSON.parse(readFileSync(new URL('../../fixtures/jsonlogic-tests.json', import.meta.url), 'utf8'));

type Case = [rule: unknown, data: unknown, expected: unknown];

function groupCases(): Array<{ section: string; cases: Case[] }> {
  const groups: Array<{ section: string; cases: Case[] }> = [];
  for (const entry of suite) {
    if (typeof entry === 'string') groups.push({ section: entry.replace(/^#\s*/, ''), cases: [] });
    else (groups.at(-1) ?? groups[groups.push({ section: 'untitled', cases: [] }) - 1]!).cases.push(entry as Case);
  }
  return groups;
}

describe('compileLogic — official JsonLogic suite', () => {
  const groups = groupCases();

  it('has all 278 cases', () => {
    expect(groups.reduce((count, group) => count + group.cases.length, 0)).toBe(278);
  });

  for (const { section, cases } of groups) {
    it(`passes: ${section}`, () => {
      for (const [rule, data, expected] of cases) {
        expect({ rule, data, result: compileLogic(rule)(data) }).toEqual({ rule, data, result: expected });
      }
    });
  }
});
