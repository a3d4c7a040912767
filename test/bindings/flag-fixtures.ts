import { InMemoryProvider, OpenFeature, type Client, type EvaluationContext, type Provider, type ResolutionDetails } from '@openfeature/server-sdk';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';

// What the tests of flags inside policies share: a policy reading two flags, the real
// InMemoryProvider counting what it is asked, and an OpenFeature client on a domain of its own.

/** Tool `new-search` only while flag new-search is on; `beta-*` tools only while beta-tier is not "off". */
export const twoFlagPolicy = compilePolicy({
  version: 1,
  default: 'allow',
  flags: { 'new-search': { default: false }, 'beta-tier': { default: 'off' } },
  rules: [
    { id: 'new-search-off', effect: 'deny', appliesTo: { names: ['new-search'] }, when: { '!': { var: 'flags.new-search' } } },
    { id: 'beta-off', effect: 'deny', appliesTo: { names: ['beta-*'] }, when: { '==': [{ var: 'flags.beta-tier' }, 'off'] } },
  ],
});

/** The InMemoryProvider, counting resolutions (a subclass: the real provider answers); boolean ones can be held. */
export class CountingProvider extends InMemoryProvider {
  resolutions = 0;
  /** Evaluation contexts of boolean resolutions, in order. */
  contexts: EvaluationContext[] = [];
  /** While set, boolean resolutions wait for it before answering. */
  hold: Promise<void> | undefined;
  override async resolveBooleanEvaluation(flagKey: string, defaultValue: boolean, context: EvaluationContext): Promise<ResolutionDetails<boolean>> {
    this.resolutions++;
    this.contexts.push(context);
    await this.hold;
    return super.resolveBooleanEvaluation(flagKey, defaultValue, context);
  }
  override resolveStringEvaluation(flagKey: string, defaultValue: string, context: EvaluationContext): Promise<ResolutionDetails<string>> {
    this.resolutions++;
    return super.resolveStringEvaluation(flagKey, defaultValue, context);
  }
}

let domains = 0;

/** A real OpenFeature client on a domain of its own, its provider ready. */
export async function flagClientOf(provider: Provider): Promise<Client> {
  const domain = `flags-in-policies-${++domains}`;
  await OpenFeature.setProviderAndWait(domain, provider);
  return OpenFeature.getClient(domain);
}
