import fc from 'fast-check';
import type { PolicyIssueCode } from '../core/errors.js';
import { policyDocuments } from './policies.js';

/** An issue a broken document must produce: its code and dot path (messages are free to improve). */
export interface ExpectedIssue {
  readonly code: PolicyIssueCode;
  readonly path: string;
}

/** A document with deliberate defects and the issues `compilePolicy` must report for them. */
export interface BrokenPolicy {
  readonly document: Record<string, unknown>;
  readonly expected: readonly ExpectedIssue[];
  /** One line per defect, for failure messages. */
  readonly defects: readonly string[];
}

/** `schema`: wrong types, values and keys in the document; `logic`: bad JSON-Logic in `when`, duplicate rule ids. */
export type DefectClass = 'schema' | 'logic';

interface Defect {
  readonly label: string;
  /** Path below the target (the document or `rules[i]`), '' for the target itself. */
  readonly at: string;
  readonly code: PolicyIssueCode;
  readonly apply: (target: Record<string, unknown>) => void;
}

const set = (key: string, value: unknown) => (target: Record<string, unknown>) => void (target[key] = value);
const inAppliesTo = (key: string, value: unknown) => (rule: Record<string, unknown>) =>
  void (rule['appliesTo'] = { ...(rule['appliesTo'] as object | undefined), [key]: value });
const schema = (label: string, at: string, apply: Defect['apply']): Defect => ({ label, at, code: 'invalid_document', apply });
const when = (label: string, at: string, code: PolicyIssueCode, condition: unknown): Defect => ({
  label,
  at: `.when${at}`,
  code,
  apply: set('when', condition),
});

const documentDefects: readonly Defect[] = [
  schema('version 2', 'version', set('version', 2)),
  schema('version "1" (a string)', 'version', set('version', '1')),
  schema('default "permit"', 'default', set('default', 'permit')),
  schema('default null', 'default', set('default', null)),
  schema('enforceRequirements "yes"', 'enforceRequirements', set('enforceRequirements', 'yes')),
  schema('description 1', 'description', set('description', 1)),
  schema('description of 4,097 characters', 'description', set('description', 'x'.repeat(4097))),
  schema('$schema 1', '$schema', set('$schema', 1)),
  schema('unknown key "defaults"', '', set('defaults', 'deny')),
];

const ruleSchemaDefects: readonly Defect[] = [
  schema('empty id', '.id', set('id', '')),
  schema('id with a space', '.id', set('id', 'has space')),
  schema('id 7 (a number)', '.id', set('id', 7)),
  schema('id of 129 characters', '.id', set('id', 'r'.repeat(129))),
  schema('effect "permit"', '.effect', set('effect', 'permit')),
  schema('effect true', '.effect', set('effect', true)),
  schema('description [] (an array)', '.description', set('description', [])),
  schema('unknown key "effects"', '', set('effects', 'allow')),
  schema('appliesTo null', '.appliesTo', set('appliesTo', null)),
  schema('appliesTo "tools" (a string)', '.appliesTo', set('appliesTo', 'tools')),
  schema('appliesTo.kinds ["tools"]', '.appliesTo.kinds[0]', inAppliesTo('kinds', ['tools'])),
  schema('appliesTo.kinds []', '.appliesTo.kinds', inAppliesTo('kinds', [])),
  schema('appliesTo.names [""]', '.appliesTo.names[0]', inAppliesTo('names', [''])),
  schema('appliesTo.groups [1]', '.appliesTo.groups[0]', inAppliesTo('groups', [1])),
  schema('appliesTo.tags "beta" (a string)', '.appliesTo.tags', inAppliesTo('tags', 'beta')),
  schema('appliesTo unknown key "name"', '.appliesTo', inAppliesTo('name', 'x')),
];

const ruleLogicDefects: readonly Defect[] = [
  when('unknown operator "startswith"', '.startswith', 'unknown_operator', { startswith: [{ var: 'client.name' }, 'c'] }),
  when('operator "log"', '.log', 'unknown_operator', { log: 'x' }),
  when('operator "method"', '.method', 'unknown_operator', { method: [{ var: 'client.name' }, 'toUpperCase'] }),
  when('operator "toString"', '.toString', 'unknown_operator', { toString: [] }),
  when('"!" without arguments', '["!"]', 'arity', { '!': [] }),
  when('"==" with one argument', '["=="]', 'arity', { '==': [1] }),
  when('var root "reqest"', '.var', 'invalid_argument', { var: 'reqest.headers.x-canary' }),
  when('var path through __proto__', '.var', 'forbidden_path', { var: 'request.headers.__proto__' }),
  when('var path through constructor', '.var', 'forbidden_path', { var: 'client.capabilities.constructor' }),
  when('NaN literal', '["=="][0]', 'invalid_argument', { '==': [Number.NaN, 1] }),
  when('has of a number', '.has[0]', 'invalid_argument', { has: [1] }),
];

const duplicateId = 'duplicate rule id "rule-0"';

/**
 * Valid documents with one to four deliberate defects, each at a known path: wrong types and
 * values at every schema position, unknown keys, unknown or unsupported operators (including
 * names of Object.prototype members), wrong arity, forbidden paths, non-finite numbers, duplicate
 * rule ids. `compilePolicy` must reject each with every expected issue.
 */
export function brokenPolicyDocuments(classes: readonly DefectClass[] = ['schema', 'logic']): fc.Arbitrary<BrokenPolicy> {
  const ruleDefects: (Defect | 'duplicate')[] = [];
  if (classes.includes('schema')) ruleDefects.push(...ruleSchemaDefects);
  if (classes.includes('logic')) ruleDefects.push(...ruleLogicDefects, 'duplicate');
  const documentLevel = classes.includes('schema') ? fc.option(fc.constantFrom(...documentDefects), { nil: undefined }) : fc.constant(undefined);
  return fc
    .record({
      base: policyDocuments({ maxRules: 4 }).filter((document) => (document.rules?.length ?? 0) >= 1),
      documentDefect: documentLevel,
      picks: fc.array(fc.option(fc.constantFrom(...ruleDefects), { nil: undefined, freq: 2 }), { minLength: 4, maxLength: 4 }),
    })
    .map(({ base, documentDefect, picks }) => {
      const document = structuredClone(base) as Record<string, unknown>;
      const rules = document['rules'] as Record<string, unknown>[];
      const expected: ExpectedIssue[] = [];
      const defects: string[] = [];
      if (documentDefect) {
        documentDefect.apply(document);
        expected.push({ code: documentDefect.code, path: documentDefect.at });
        defects.push(`document: ${documentDefect.label}`);
      }
      rules.forEach((rule, index) => {
        const defect = picks[index];
        if (defect === undefined || (defect === 'duplicate' && index === 0)) return;
        if (defect === 'duplicate') {
          rule['id'] = 'rule-0';
          defects.push(`rules[${index}]: ${duplicateId}`);
          return;
        }
        defect.apply(rule);
        expected.push({ code: defect.code, path: `rules[${index}]${defect.at}` });
        defects.push(`rules[${index}]: ${defect.label}`);
      });
      expected.push(...duplicateIssues(rules));
      return { document, expected, defects };
    })
    .filter((broken) => broken.expected.length > 0);
}

const validRuleId = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** Duplicates among valid ids; an invalid id is reported as such, not as a duplicate. */
function duplicateIssues(rules: readonly Record<string, unknown>[]): ExpectedIssue[] {
  const issues: ExpectedIssue[] = [];
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    const id = rule['id'];
    if (typeof id !== 'string' || !validRuleId.test(id)) return;
    if (seen.has(id)) issues.push({ code: 'duplicate_rule_id', path: `rules[${index}].id` });
    else seen.add(id);
  });
  return issues;
}
