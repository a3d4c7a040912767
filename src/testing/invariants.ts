import type { ExpectedView } from './oracle.js';
import { sentinels, type Observation } from './probe.js';
import type { RegisteredPrimitive } from './registry.js';

const methodNotFound = -32601;

/** How unknown names are answered in one observation, with the name put in. */
interface UnknownAnswers {
  forKey(key: string): string | undefined;
  /** Completion is not served at all (no completable argument anywhere): nothing to tell apart. */
  readonly completionUnsupported: boolean;
}

function substitute(answer: string, sentinel: string, name: string): string {
  const inJson = (text: string) => JSON.stringify(text).slice(1, -1);
  return answer.split(inJson(sentinel)).join(inJson(name));
}

function unknownAnswers(observation: Observation): UnknownAnswers {
  const answer = (key: string) => observation.answers.get(key)!;
  const listedTemplates = observation.lists.templates.map((item) => String(item['uriTemplate']));
  // A sentinel URI that a visible template matches is not unknown; use one that none matches.
  const resourceSentinel = sentinels.resources.find((uri) => !listedTemplates.some((template) => observation.uris.matches(template, uri)));
  const promptCompletion = answer(`complete-prompt:${sentinels.prompt}`);
  return {
    completionUnsupported: (JSON.parse(promptCompletion) as { error?: { code?: number } }).error?.code === methodNotFound,
    forKey(key) {
      const [probe, name] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
      if (probe === 'call') return substitute(answer(`call:${sentinels.tool}`), sentinels.tool, name);
      if (probe === 'get') return substitute(answer(`get:${sentinels.prompt}`), sentinels.prompt, name);
      if (probe === 'complete-prompt') return substitute(promptCompletion, sentinels.prompt, name);
      if (probe === 'complete-template') return substitute(answer(`complete-template:${sentinels.template}`), sentinels.template, name);
      const [echoedSentinel, echoedName] = [resourceSentinel && observation.uris.echoed(resourceSentinel), observation.uris.echoed(name)];
      if (echoedSentinel === undefined || echoedName === undefined) return undefined;
      return substitute(answer(`read:${resourceSentinel}`), echoedSentinel, echoedName);
    },
  };
}

const isSentinel = (key: string) =>
  key === `call:${sentinels.tool}` ||
  key === `get:${sentinels.prompt}` ||
  key === `complete-prompt:${sentinels.prompt}` ||
  key === `complete-template:${sentinels.template}` ||
  sentinels.resources.some((uri) => key === `read:${uri}`);

/** An outcome in a few words: `error -32602 "Prompt x not found"`, `isError "…"`, or `a result`. */
export function describeAnswer(answer: string): string {
  const { result, error } = JSON.parse(answer) as { result?: { isError?: boolean; content?: { text?: unknown }[] }; error?: { code?: unknown; message?: unknown } };
  if (error) return `error ${String(error.code)} ${JSON.stringify(error.message)}`;
  if (result?.isError) return `isError ${JSON.stringify(result.content?.map((item) => item.text).join(' '))}`;
  return 'a result';
}

/** Whether each probe's name should be usable, judging by what was listed. */
function listedFor(observation: Observation): (key: string) => boolean {
  const names = (list: keyof Observation['lists'], field: string) => new Set(observation.lists[list].map((item) => String(item[field])));
  const tools = names('tools', 'name');
  const prompts = names('prompts', 'name');
  const resources = names('resources', 'uri');
  const templateNames = names('templates', 'uriTemplate');
  return (key) => {
    const name = key.slice(key.indexOf(':') + 1);
    if (key.startsWith('call:')) return tools.has(name);
    if (key.startsWith('get:') || key.startsWith('complete-prompt:')) return prompts.has(name);
    if (key.startsWith('complete-template:')) return templateNames.has(name);
    // A resource hidden (or never registered) is still read through a visible template that matches it.
    return resources.has(name) || [...templateNames].some((template) => observation.uris.matches(template, name));
  };
}

/**
 * Listed ⇔ usable for every kind, and every hidden name answered exactly as an unknown one;
 * with an expected view, the lists hold exactly what the policy decides.
 */
export function checkObservation(observation: Observation, registry: readonly RegisteredPrimitive[], expected?: ExpectedView): string[] {
  const violations: string[] = [];
  const unknown = unknownAnswers(observation);
  const listed = listedFor(observation);
  for (const [key, answer] of observation.answers) {
    if (isSentinel(key)) continue;
    const unknownAnswer = unknown.forKey(key);
    if (unknownAnswer === undefined || (unknown.completionUnsupported && key.startsWith('complete-'))) continue;
    const [probe, name] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    if (listed(key) && answer === unknownAnswer)
      violations.push(`listed ⇔ usable: "${name}" is listed, but ${probe} answers as for an unknown name: ${describeAnswer(answer)}`);
    if (!listed(key) && answer !== unknownAnswer) {
      violations.push(`hidden ≡ unknown: "${name}" is not listed, but ${probe} answers ${describeAnswer(answer)}; an unknown name gets ${describeAnswer(unknownAnswer)}`);
    }
  }
  for (const [list, items] of Object.entries(observation.lists)) {
    for (const item of items) {
      const meta = item['_meta'] as Record<string, unknown> | undefined;
      if (meta && 'mcp-gate' in meta) violations.push(`metadata stripped: ${list} item "${String(item['name'])}" still carries _meta["mcp-gate"]`);
    }
  }
  if (expected) violations.push(...compareWithPolicy(observation, registry, expected));
  return violations;
}

function compareWithPolicy(observation: Observation, registry: readonly RegisteredPrimitive[], expected: ExpectedView): string[] {
  const staticUris = new Set(registry.filter((primitive) => primitive.kind === 'resource').map((primitive) => primitive.key));
  const actual: ExpectedView = {
    tools: observation.lists.tools.map((item) => String(item['name'])),
    prompts: observation.lists.prompts.map((item) => String(item['name'])),
    resources: observation.lists.resources.map((item) => String(item['uri'])).filter((uri) => staticUris.has(uri)),
    templates: observation.lists.templates.map((item) => String(item['name'])),
  };
  const violations: string[] = [];
  for (const list of ['tools', 'prompts', 'resources', 'templates'] as const) {
    const [want, got] = [JSON.stringify(expected[list]), JSON.stringify(actual[list])];
    if (want !== got) violations.push(`agrees with the policy: ${list} listed ${got}, the policy allows ${want}`);
  }
  return violations;
}

const answered = '(answered)';

/** The part of an observation two executions must agree on: lists, and which probes found something (hidden answers exactly). */
function comparable(observation: Observation): Map<string, string> {
  const unknown = unknownAnswers(observation);
  const view = new Map<string, string>();
  for (const [list, items] of Object.entries(observation.lists)) view.set(`${list}/list`, JSON.stringify(items));
  for (const [key, answer] of observation.answers) view.set(key, answer === unknown.forKey(key) ? answer : answered);
  return view;
}

/** Differences between two executions for one caller, one line each. */
export function compareObservations(first: string, firstObservation: Observation, second: string, secondObservation: Observation): string[] {
  const [left, right] = [comparable(firstObservation), comparable(secondObservation)];
  const differences: string[] = [];
  for (const key of new Set([...left.keys(), ...right.keys()])) {
    const [a, b] = [left.get(key), right.get(key)];
    if (a === b) continue;
    const show = (value: string | undefined) => (value === undefined ? '(not asked)' : key.endsWith('/list') || value === answered ? value : describeAnswer(value));
    differences.push(`${first} vs ${second}: ${key} gave ${show(a)} vs ${show(b)}`);
  }
  return differences;
}
