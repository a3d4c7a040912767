// The policy editor: CodeMirror 6 with JSON, completion from the policy schema's vocabulary, and
// the compiler's errors and warnings drawn at their paths as you type.
import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { json } from '@codemirror/lang-json';
import { syntaxTree } from '@codemirror/language';
import { linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import type { SyntaxNode } from '@lezer/common';
import { builtinOperators } from '../../src/core/logic/operators.js';
import { contextShape, type PathShape } from '../../src/core/policy/context-shape.js';
import { locateJsonPaths, rangeOfIssue } from './json-paths.js';
import type { Compiled } from './model.js';

export interface PolicyEditorOptions {
  readonly parent: HTMLElement;
  readonly text: string;
  readonly label: string;
  /** The compiled form of a text; the page caches it so the linter and the matrix compile once. */
  readonly compile: (text: string) => Compiled;
  readonly onChange?: (text: string) => void;
}

export function createPolicyEditor(options: PolicyEditorOptions): EditorView {
  return new EditorView({
    parent: options.parent,
    state: EditorState.create({
      doc: options.text,
      extensions: [
        basicSetup,
        json(),
        lintGutter(),
        linter((view) => diagnose(view.state.doc.toString(), options.compile), { delay: 150 }),
        autocompletion({ override: [completePolicy] }),
        EditorView.contentAttributes.of({ 'aria-label': options.label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange?.(update.state.doc.toString());
        }),
      ],
    }),
  });
}

/** Errors and warnings of the compiled text, each at the range its path names. */
export function diagnose(text: string, compile: (text: string) => Compiled): Diagnostic[] {
  const compiled = compile(text);
  if (!compiled.ok && compiled.syntaxError) {
    const at = Math.min(compiled.syntaxError.offset, text.length);
    return [{ from: at, to: Math.min(at + 1, text.length), severity: 'error', message: `invalid JSON: ${compiled.syntaxError.message}` }];
  }
  const ranges = locateJsonPaths(text);
  const issues = compiled.ok
    ? compiled.warnings.map((issue) => ({ ...issue, severity: 'warning' as const }))
    : compiled.issues.map((issue) => ({ ...issue, severity: 'error' as const }));
  return issues.map((issue) => {
    const { from, to } = rangeOfIssue(ranges, issue);
    return { from, to: Math.min(to, text.length), severity: issue.severity, message: `${issue.path === '' ? '' : `${issue.path}: `}${issue.message}`, source: 'mcp-gate' };
  });
}

const documentKeys = ['$schema', 'version', 'description', 'default', 'enforceRequirements', 'rules'];
const ruleKeys = ['id', 'description', 'effect', 'appliesTo', 'when'];
const appliesToKeys = ['kinds', 'names', 'groups', 'tags'];
const kinds = ['tool', 'prompt', 'resource', 'resourceTemplate'];

/** Every literal `var` path the context shape knows, to a depth that stays readable. */
function contextPaths(): string[] {
  const paths: string[] = [];
  const walk = (prefix: string, shape: PathShape) => {
    paths.push(prefix);
    if (shape.kind === 'record') for (const [name, field] of Object.entries(shape.fields)) walk(`${prefix}.${name}`, field);
    if (shape.kind === 'capabilities') for (const name of ['sampling', 'elicitation', 'roots', 'tasks', 'experimental', 'extensions']) paths.push(`${prefix}.${name}`);
    if (shape.kind === 'headers') paths.push(`${prefix}.x-canary`);
  };
  for (const [root, shape] of Object.entries(contextShape)) if (root !== 'tool') walk(root, shape);
  return paths;
}
const varPaths = contextPaths();

/** The keys from the document's root down to `node` (array levels leave no key). */
function keyPath(node: SyntaxNode | null, text: (from: number, to: number) => string): string[] {
  const keys: string[] = [];
  for (let current = node; current; current = current.parent) {
    if (current.name === 'Property') {
      const name = current.getChild('PropertyName');
      if (name) keys.unshift(JSON.parse(text(name.from, name.to)) as string);
    }
  }
  return keys;
}

function completePolicy(context: CompletionContext): CompletionResult | null {
  const node = syntaxTree(context.state).resolveInner(context.pos, -1);
  if (node.name !== 'PropertyName' && node.name !== 'String' && !context.explicit) return null;
  const text = (from: number, to: number) => context.state.sliceDoc(from, to);
  const inString = node.name === 'PropertyName' || node.name === 'String';
  const from = inString ? node.from + 1 : context.pos;
  // A key being typed belongs to the object around its Property; a value to its own Property.
  const isKey = node.name === 'PropertyName' || (node.name === 'String' && node.parent?.name === 'Object');
  const property = node.name === 'PropertyName' ? node.parent?.parent : node.parent;
  const keys = keyPath(isKey ? (property ?? null) : node, text);
  const last = keys[keys.length - 1];
  let options: string[];
  if (isKey) {
    if (keys.length === 0) options = documentKeys;
    else if (keys.includes('when')) options = [...builtinOperators.keys()];
    else if (last === 'rules') options = ruleKeys;
    else if (last === 'appliesTo') options = appliesToKeys;
    else return null;
  } else {
    if (last === 'effect' || last === 'default') options = ['allow', 'deny'];
    else if (last === 'kinds') options = kinds;
    else if (keys.includes('when') && (last === 'var' || last === 'missing' || last === 'has')) options = varPaths;
    else return null;
  }
  return { from, options: options.map((label) => ({ label, type: isKey ? 'property' : 'constant' })), validFor: /^[\w.$:/-]*$/ };
}
