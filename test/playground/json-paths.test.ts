import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PolicyCompileError } from '../../src/core/errors.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { locateJsonPaths, rangeOfIssue, rangeOfPath } from '../../playground/src/json-paths.js';

const demoText = readFileSync(new URL('../../policies/demo.json', import.meta.url), 'utf8');

describe('locateJsonPaths', () => {
  it('finds every value of a document at the path compile issues use, key and value', () => {
    const ranges = locateJsonPaths(demoText);
    const slice = (path: string) => {
      const range = ranges.get(path)!;
      return [range.keyFrom === undefined ? '' : demoText.slice(range.keyFrom, range.keyTo), demoText.slice(range.from, range.to)];
    };
    expect(slice('rules[0].id')).toEqual(['"id"', '"canary-needs-header"']);
    expect(slice('rules[0].when["!=="][0].var')).toEqual(['"var"', '"request.headers.x-canary"']);
    expect(slice('rules[1].when["!"].or[0].in[0]')).toEqual(['', '"beta"']);
    expect(slice('enforceRequirements')).toEqual(['"enforceRequirements"', 'true']);
    expect(demoText.slice(ranges.get('')!.from, ranges.get('')!.to)).toBe(demoText.trim());
  });

  it("places each of the compiler's issues and warnings on the text they are about", () => {
    const text = demoText
      .replace('"!==": [{ "var": "request.headers.x-canary" }', '"!===": [{ "var": "request.headers.x-canary" }')
      .replace('"effect": "deny",\n      "appliesTo": { "groups": ["beta"] }', '"effect": "block",\n      "appliesTo": { "groups": ["beta"] }');
    let issues: PolicyCompileError['issues'] = [];
    try {
      compilePolicy(JSON.parse(text));
    } catch (error) {
      issues = (error as PolicyCompileError).issues;
    }
    const ranges = locateJsonPaths(text);
    const placed = issues.map((issue) => {
      const range = rangeOfPath(ranges, issue.path);
      return `${issue.path} → ${text.slice(range.keyFrom ?? range.from, range.keyTo ?? range.to)}`;
    });
    expect(placed).toEqual(['rules[0].when["!==="] → "!==="', 'rules[1].effect → "effect"']);

    const warned = demoText.replace('"request.headers.x-canary" }, "1"', '"request.headers.X-Canary" }, "1"');
    const [warning] = compilePolicy(JSON.parse(warned)).warnings;
    const range = rangeOfPath(locateJsonPaths(warned), warning!.path);
    expect(warned.slice(range.from, range.to)).toBe('"request.headers.X-Canary"');
  });

  it('draws an unknown operator and an unknown key on the key, other issues on their value', () => {
    const text = demoText
      .replace('"!==": [{ "var": "request.headers.x-canary" }', '"!===": [{ "var": "request.headers.x-canary" }')
      .replace('"appliesTo": { "groups": ["beta"] }', '"appliesTo": { "group": ["beta"] }')
      .replace('"effect": "deny",\n      "appliesTo": { "groups": ["admin"] }', '"effect": "block",\n      "appliesTo": { "groups": ["admin"] }');
    let issues: PolicyCompileError['issues'] = [];
    try {
      compilePolicy(JSON.parse(text));
    } catch (error) {
      issues = (error as PolicyCompileError).issues;
    }
    const ranges = locateJsonPaths(text);
    expect(
      issues.map((issue) => {
        const { from, to } = rangeOfIssue(ranges, issue);
        return `${issue.path}: ${text.slice(from, to)}`;
      }),
    ).toEqual(['rules[0].when["!==="]: "!==="', 'rules[1].appliesTo: "group"', 'rules[2].effect: "block"']);
  });

  it('falls back to the nearest enclosing value for a path that is not in the text', () => {
    const ranges = locateJsonPaths(demoText);
    const range = rangeOfPath(ranges, 'rules[2].when.missing[0]');
    expect(range).toEqual(ranges.get('rules[2].when'));
  });
});
