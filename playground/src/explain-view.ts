// Explain for one cell: the decision, then every rule with its status and, for rules that apply,
// each clause of its condition with its value (true/false), as Unleash shows constraints.
import type { PrimitiveMetadata } from '../../src/core/primitive-metadata.js';
import type { ClauseTrace, DecisionTrace, RuleTrace } from '../../src/core/policy/decision-trace.js';
import { describeColumn, describePrimitive, type MatrixColumn } from './model.js';

export function renderExplain(target: HTMLElement, primitive: PrimitiveMetadata, column: MatrixColumn, trace: DecisionTrace): void {
  const { decision } = trace;
  const heading = document.createElement('h3');
  heading.textContent = `${describePrimitive(primitive)} for ${describeColumn(column)}`;
  const verdict = document.createElement('p');
  verdict.className = `verdict ${decision.allowed ? 'visible' : 'hidden'}`;
  verdict.dataset.testid = 'verdict';
  verdict.textContent = `${decision.allowed ? '✓ visible' : '✕ hidden'} — ${decision.reason}${decision.ruleId === undefined ? '' : ` ${decision.ruleId}`}: ${decision.message}`;
  const list = document.createElement('ol');
  list.className = 'rule-traces';
  for (const rule of trace.rules) list.append(renderRule(rule, decision.reason === 'requirement'));
  target.replaceChildren(heading, verdict, list);
}

function ruleStatus(rule: RuleTrace, requirementDecided: boolean): string {
  if (!rule.applies) return 'does not apply (appliesTo)';
  if (rule.decided) return `decided: ${rule.effect}`;
  if (requirementDecided) return 'not reached: a requirement decided';
  if (!rule.reached) return rule.matched ? 'matches, not reached: an earlier rule decided' : 'not reached: an earlier rule decided';
  return rule.matched ? 'matches' : 'does not match';
}

function renderRule(rule: RuleTrace, requirementDecided: boolean): HTMLElement {
  const item = document.createElement('li');
  item.className = `rule-trace${rule.decided ? ' decided' : ''}${rule.applies ? '' : ' inapplicable'}`;
  item.dataset.rule = rule.id;
  const title = document.createElement('div');
  title.className = 'rule-title';
  title.textContent = `${rule.decided ? '▶ ' : ''}${rule.effect} ${rule.id} — ${ruleStatus(rule, requirementDecided)}`;
  item.append(title);
  if (rule.applies && rule.when !== null) {
    const clauses = document.createElement('ul');
    clauses.className = 'clauses';
    clauses.append(renderClause(rule.when));
    item.append(clauses);
  } else if (rule.applies) {
    const always = document.createElement('div');
    always.className = 'clause';
    always.textContent = 'no condition: always';
    item.append(always);
  }
  return item;
}

function renderClause(clause: ClauseTrace): HTMLElement {
  const item = document.createElement('li');
  const line = document.createElement('div');
  line.className = `clause ${clause.skipped ? 'skipped' : clause.truthy ? 'true' : 'false'}`;
  line.dataset.path = clause.path;
  const value = clause.skipped ? 'not evaluated' : clause.error !== undefined ? `error: ${clause.error}` : `${showValue(clause.value)} → ${clause.truthy ? 'true' : 'false'}`;
  line.textContent = `${clause.skipped ? '–' : clause.truthy ? '✓' : '✕'} ${abbreviate(clause.logic)} = ${value}`;
  line.title = clause.path;
  item.append(line);
  if (clause.children.length > 0) {
    const children = document.createElement('ul');
    for (const child of clause.children) children.append(renderClause(child));
    item.append(children);
  }
  return item;
}

function showValue(value: unknown): string {
  return value === undefined ? 'undefined' : abbreviate(value);
}

function abbreviate(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}
