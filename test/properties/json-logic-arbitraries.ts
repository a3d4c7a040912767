import fc from 'fast-check';

// Random JSON-Logic rules and data for the differential test against json-logic-js. The
// generator stays inside the language both engines share: valid arities, no `log`/`method`,
// no prototype names as paths, `missing` keys as literals (json-logic-js re-applies keys taken
// from data as rules; we never do — see docs/policy-language.md).

const keys = ['a', 'b', 'c', 'x'] as const;
const strings = ['', 'a', 'b', 'abc', '1', '0', '2.5', 'x', 'a.b', 'true'];

const scalar = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -3, max: 10 }), fc.constantFrom(0.5, -1.5, 100), fc.constantFrom(...strings));

export const jsonData: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...keys), tie('value'), { maxKeys: 4 }),
  ),
})).value;

export const rootData = fc.dictionary(fc.constantFrom(...keys), jsonData, { maxKeys: 4 });

const paths = ['a', 'b', 'c', 'x', 'a.b', 'a.a', 'b.0', 'c.1', 'a.length', 'x.b.c', '', 0, 1, 'current', 'accumulator'];

const operatorsOfArity = (names: readonly string[], min: number, max: number, rule: fc.Arbitrary<unknown>) =>
  fc.record({ op: fc.constantFrom(...names), args: fc.array(rule, { minLength: min, maxLength: max }) }).map(({ op, args }) => ({
    [op]: args,
  }));

export const jsonLogicRule: fc.Arbitrary<unknown> = fc.letrec<{ rule: unknown }>((tie) => {
  const rule = tie('rule');
  return {
    rule: fc.oneof(
      { depthSize: 'small', withCrossShrink: true, maxDepth: 5 },
      scalar,
      fc.record({ var: fc.constantFrom(...paths) }),
      fc.tuple(fc.constantFrom(...paths), scalar).map(([path, fallback]) => ({ var: [path, fallback] })),
      rule.map((inner) => ({ var: [{ cat: [inner] }] })),
      fc.array(fc.constantFrom(...keys, 'a.b', 'x.b'), { maxLength: 3 }).map((names) => ({ missing: names })),
      fc.tuple(fc.integer({ min: 0, max: 3 }), fc.array(fc.constantFrom(...keys), { maxLength: 3 })).map(([need, names]) => ({
        missing_some: [need, names],
      })),
      operatorsOfArity(['==', '===', '!=', '!==', '>', '>=', '%', '/', 'in'], 2, 2, rule),
      operatorsOfArity(['<', '<='], 2, 3, rule),
      operatorsOfArity(['!', '!!'], 1, 1, rule),
      operatorsOfArity(['and', 'or', 'min', 'max', '+', '*'], 1, 4, rule),
      operatorsOfArity(['if', '?:', 'cat', 'merge'], 0, 5, rule),
      operatorsOfArity(['-'], 1, 2, rule),
      operatorsOfArity(['substr'], 2, 3, rule),
      operatorsOfArity(['map', 'filter', 'all', 'none', 'some'], 2, 2, rule),
      operatorsOfArity(['reduce'], 2, 3, rule),
      fc.array(rule, { maxLength: 3 }),
    ),
  };
}).rule;
