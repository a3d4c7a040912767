// The timed cases of bench/core.ts, one family per function: one evaluation, the first decision
// of a request, and filtering a registry for recurring and for unique callers. Each loop is its
// own function literal so every call site in it stays monomorphic.
import type { RequestMemo } from '../src/core/request-memo.js';
import { memoFor } from '../src/core/request-memo.js';
import type { PrimitiveMetadata, RequestContext } from '../src/index.js';
import type { Shape } from './core-shapes.js';
import type { BenchCase } from './measure.js';

export const pairCount = 1024;

export type Scenario = 'one' | 'first' | 'predicate' | 'recurring' | 'unique';

export type Implementation = 'hand' | 'gate' | 'gate-predicate' | 'gate-cached' | 'json-logic-js' | 'json-logic-engine';

export interface ShapeCase extends BenchCase {
  readonly scenario: Scenario;
  readonly implementation: Implementation;
}

export interface Implementations {
  readonly evaluate: (context: RequestContext, primitive: PrimitiveMetadata) => boolean;
  /** How mcp-gate filters a list: decisions bound to one request (request-only conditions run once). */
  readonly forContext: (context: RequestContext) => (primitive: PrimitiveMetadata) => boolean;
  readonly jsonLogicApply: (data: unknown) => boolean;
  readonly engineBuilt: (data: unknown) => boolean;
  readonly hand: (context: RequestContext, primitive: PrimitiveMetadata) => boolean;
  readonly cachedFilter: { visible(context: RequestContext): readonly PrimitiveMetadata[] };
  readonly uniqueFilter: { visible(context: RequestContext): readonly PrimitiveMetadata[] };
}

export interface Samples {
  readonly pairContexts: readonly RequestContext[];
  /**
   * Contexts equal to `pairContexts` whose memo is forgotten before every decision: each
   * decision is made from scratch, as the one decision of a new request (a tools/call) is, on a
   * context built the way adapters build them.
   */
  readonly pairFirstContexts: readonly RequestContext[];
  readonly pairFirstMemos: readonly RequestMemo[];
  readonly pairPrimitives: readonly PrimitiveMetadata[];
  readonly pairData: readonly unknown[];
  /** Merged data per recurring context, per primitive. */
  readonly listData: ReadonlyArray<readonly unknown[]>;
  /**
   * Copies of the unique callers for the cached filter: the plain loop's decisions on the same
   * context objects would otherwise be remembered in them and spare the filter's.
   */
  readonly uniqueFilterContexts: readonly RequestContext[];
}

/** Forgets what policies remembered about this request (its memo), as for a request never seen. */
export function forgetRequest(context: RequestContext): void {
  memoFor(context, 0)!.forget();
}

/** Every timed case of a shape except compilePredicate's (bench/core.ts times those in a process of their own). */
export function createCases(shape: Shape, impls: Implementations, samples: Samples): ShapeCase[] {
  return [...oneCases(impls, samples), ...firstCases(impls, samples), ...recurringCases(shape, impls, samples), ...uniqueCases(shape, impls, samples)];
}

/** One evaluation per sample pair, 1,024 pairs of recurring contexts and primitives (ns per decision). */
function oneCases(impls: Implementations, samples: Samples): ShapeCase[] {
  const { pairContexts, pairPrimitives, pairData } = samples;
  const { evaluate, jsonLogicApply, engineBuilt, hand } = impls;
  return [
    {
      id: 'one.hand',
      scenario: 'one',
      implementation: 'hand',
      label: 'hand-written closure',
      opsPerRun: pairCount,
      run() {
        let allowed = 0;
        for (let index = 0; index < pairCount; index++) if (hand(pairContexts[index]!, pairPrimitives[index]!)) allowed++;
        return allowed;
      },
    },
    {
      id: 'one.gate',
      scenario: 'one',
      implementation: 'gate',
      label: 'mcp-gate policy.evaluate',
      opsPerRun: pairCount,
      run() {
        let allowed = 0;
        for (let index = 0; index < pairCount; index++) if (evaluate(pairContexts[index]!, pairPrimitives[index]!)) allowed++;
        return allowed;
      },
    },
    {
      id: 'one.json-logic-js',
      scenario: 'one',
      implementation: 'json-logic-js',
      label: 'json-logic-js apply',
      opsPerRun: pairCount,
      run() {
        let allowed = 0;
        for (let index = 0; index < pairCount; index++) if (jsonLogicApply(pairData[index])) allowed++;
        return allowed;
      },
    },
    {
      id: 'one.json-logic-engine',
      scenario: 'one',
      implementation: 'json-logic-engine',
      label: 'json-logic-engine build',
      opsPerRun: pairCount,
      run() {
        let allowed = 0;
        for (let index = 0; index < pairCount; index++) if (engineBuilt(pairData[index])) allowed++;
        return allowed;
      },
    },
  ];
}

/** The same pairs, each as the first decision of its request: the context's memo is forgotten before each. */
function firstCases(impls: Implementations, samples: Samples): ShapeCase[] {
  const { pairFirstContexts, pairFirstMemos, pairPrimitives, pairData } = samples;
  const { evaluate, jsonLogicApply, engineBuilt, hand } = impls;
  return [
    {
      id: 'first.hand',
      scenario: 'first',
      implementation: 'hand',
      label: 'hand-written closure',
      opsPerRun: pairCount,
      run() {
        let allowed = 0;
        for (let index = 0; index < pairCount; index++) {
          pairFirstMemos[index]!.forget(); // the same store as the mcp-gate loop, for a fair ratio
          if (hand(pairFirstContexts[index]!, pairPrimitives[index]!)) allowed++;
        }
        return allowed;
      },
    },
    {
      id: 'first.gate',
      scenario: 'first',
      implementation: 'gate',
      label: 'mcp-gate policy.evaluate',
      opsPerRun: pairCount,
      run() {
        let allowed = 0;
        for (let index = 0; index < pairCount; index++) {
          pairFirstMemos[index]!.forget(); // forget: this is the request's first decision
          if (evaluate(pairFirstContexts[index]!, pairPrimitives[index]!)) allowed++;
        }
        return allowed;
      },
    },
    // The baselines remember nothing between calls: their "first" is their "one", timed again here
    // so this scenario's ratios come from side-by-side batches too.
    {
      id: 'first.json-logic-js',
      scenario: 'first',
      implementation: 'json-logic-js',
      label: 'json-logic-js apply',
      opsPerRun: pairCount,
      run() {
        let allowed = 0;
        for (let index = 0; index < pairCount; index++) if (jsonLogicApply(pairData[index])) allowed++;
        return allowed;
      },
    },
    {
      id: 'first.json-logic-engine',
      scenario: 'first',
      implementation: 'json-logic-engine',
      label: 'json-logic-engine build',
      opsPerRun: pairCount,
      run() {
        let allowed = 0;
        for (let index = 0; index < pairCount; index++) if (engineBuilt(pairData[index])) allowed++;
        return allowed;
      },
    },
  ];
}

/** Filtering the whole registry once for each recurring caller (ns per list). */
function recurringCases(shape: Shape, impls: Implementations, samples: Samples): ShapeCase[] {
  const { listData } = samples;
  const { forContext, jsonLogicApply, engineBuilt, hand, cachedFilter } = impls;
  const { primitives, contexts } = shape;
  const size = primitives.length;
  // A filter run serves each recurring caller once (16 lists), so every run does the same work
  // and no batch is cheaper for having drawn the cheaper callers; ns/op is per list.
  const callers = contexts.length;
  return [
    {
      id: 'recurring.hand',
      scenario: 'recurring',
      implementation: 'hand',
      label: 'hand-written closure, loop',
      opsPerRun: callers,
      run() {
        let total = 0;
        for (let caller = 0; caller < callers; caller++) {
          const context = contexts[caller]!;
          forgetRequest(context); // the same call as the mcp-gate loop, for a fair ratio
          const visible: PrimitiveMetadata[] = [];
          for (let index = 0; index < size; index++) if (hand(context, primitives[index]!)) visible.push(primitives[index]!);
          total += visible.length;
        }
        return total;
      },
    },
    {
      id: 'recurring.gate',
      scenario: 'recurring',
      implementation: 'gate',
      label: 'mcp-gate policy.forContext, loop',
      opsPerRun: callers,
      run() {
        let total = 0;
        for (let caller = 0; caller < callers; caller++) {
          // Each list is a new request from a recurring caller: nothing remembered from the last one.
          forgetRequest(contexts[caller]!);
          const decide = forContext(contexts[caller]!);
          const visible: PrimitiveMetadata[] = [];
          for (let index = 0; index < size; index++) if (decide(primitives[index]!)) visible.push(primitives[index]!);
          total += visible.length;
        }
        return total;
      },
    },
    {
      id: 'recurring.gate-cached',
      scenario: 'recurring',
      implementation: 'gate-cached',
      label: 'mcp-gate createVisibilityFilter (cache hits)',
      opsPerRun: callers,
      run() {
        let total = 0;
        for (let caller = 0; caller < callers; caller++) total += cachedFilter.visible(contexts[caller]!).length;
        return total;
      },
    },
    {
      id: 'recurring.json-logic-js',
      scenario: 'recurring',
      implementation: 'json-logic-js',
      label: 'json-logic-js apply, loop',
      opsPerRun: callers,
      run() {
        let total = 0;
        for (let caller = 0; caller < callers; caller++) {
          const data = listData[caller]!;
          const visible: PrimitiveMetadata[] = [];
          for (let index = 0; index < size; index++) if (jsonLogicApply(data[index])) visible.push(primitives[index]!);
          total += visible.length;
        }
        return total;
      },
    },
    {
      id: 'recurring.json-logic-engine',
      scenario: 'recurring',
      implementation: 'json-logic-engine',
      label: 'json-logic-engine build, loop',
      opsPerRun: callers,
      run() {
        let total = 0;
        for (let caller = 0; caller < callers; caller++) {
          const data = listData[caller]!;
          const visible: PrimitiveMetadata[] = [];
          for (let index = 0; index < size; index++) if (engineBuilt(data[index])) visible.push(primitives[index]!);
          total += visible.length;
        }
        return total;
      },
    },
  ];
}

/** Filtering the whole registry for callers never seen before, so every cache lookup misses (ns per list). */
function uniqueCases(shape: Shape, impls: Implementations, samples: Samples): ShapeCase[] {
  const { uniqueFilterContexts } = samples;
  const { forContext, hand, uniqueFilter } = impls;
  const { primitives, uniqueContexts } = shape;
  const size = primitives.length;
  // As many lists per run as the recurring cases serve.
  const callers = shape.contexts.length;
  // Unique callers in windows of 16 consecutive ones (one variation of each recurring caller);
  // a case serves fewer lists in a run than there are callers, so no caller comes back and every
  // lookup misses.
  let uniqueHandNext = 0;
  let uniqueGateNext = 0;
  let uniqueCachedNext = 0;
  const uniqueCount = uniqueContexts.length;
  return [
    {
      id: 'unique.hand',
      scenario: 'unique',
      implementation: 'hand',
      label: 'hand-written closure, loop',
      opsPerRun: callers,
      run() {
        let total = 0;
        for (let caller = 0; caller < callers; caller++) {
          const context = uniqueContexts[uniqueHandNext]!;
          forgetRequest(context);
          uniqueHandNext = (uniqueHandNext + 1) % uniqueCount;
          const visible: PrimitiveMetadata[] = [];
          for (let index = 0; index < size; index++) if (hand(context, primitives[index]!)) visible.push(primitives[index]!);
          total += visible.length;
        }
        return total;
      },
    },
    {
      id: 'unique.gate',
      scenario: 'unique',
      implementation: 'gate',
      label: 'mcp-gate policy.forContext, loop',
      opsPerRun: callers,
      run() {
        let total = 0;
        for (let caller = 0; caller < callers; caller++) {
          forgetRequest(uniqueContexts[uniqueGateNext]!); // the agreement check decided it before
          const decide = forContext(uniqueContexts[uniqueGateNext]!);
          uniqueGateNext = (uniqueGateNext + 1) % uniqueCount;
          const visible: PrimitiveMetadata[] = [];
          for (let index = 0; index < size; index++) if (decide(primitives[index]!)) visible.push(primitives[index]!);
          total += visible.length;
        }
        return total;
      },
    },
    {
      id: 'unique.gate-cached',
      scenario: 'unique',
      implementation: 'gate-cached',
      label: 'mcp-gate createVisibilityFilter (all misses)',
      opsPerRun: callers,
      run() {
        let total = 0;
        for (let caller = 0; caller < callers; caller++) {
          forgetRequest(uniqueFilterContexts[uniqueCachedNext]!);
          total += uniqueFilter.visible(uniqueFilterContexts[uniqueCachedNext]!).length;
          uniqueCachedNext = (uniqueCachedNext + 1) % uniqueCount;
        }
        return total;
      },
    },
  ];
}
