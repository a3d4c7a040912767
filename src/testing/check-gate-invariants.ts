import { PolicyOptionError } from '../core/errors.js';
import fc from 'fast-check';
import type { Policy } from '../core/policy/types.js';
import type { PolicyDocument } from '../core/policy/schema.js';
import type { GateOptions as SdkGateOptions } from '../sdk/index.js';
import type { GateOptions as ServerGateOptions } from '../server/index.js';
import { callers, profileCallers, type Caller } from './callers.js';
import type { DrivenGate, GateDriver } from './driver.js';
import { GateInvariantError } from './errors.js';
import { checkObservation, compareObservations } from './invariants.js';
import { expectedView } from './oracle.js';
import { observe, type Observation } from './probe.js';
import { detectAdapter, gateAdapterOption, type AnyMcpServer, type GateAdapter, type RegisteredPrimitive } from './registry.js';

/** Options of checkGateInvariants: which gate, which callers, how many runs, and what else to require. */
export interface CheckGateInvariantsOptions {
  /**
   * Which gate to check: `'sdk'` (mcp-gate/sdk, McpServer of @modelcontextprotocol/sdk 1.32) or
   * `'server'` (mcp-gate/server, McpServer of @modelcontextprotocol/server 2.4). Default: told
   * from the server `createServer` returns; when given, that server must be of this flavour.
   */
  readonly adapter?: GateAdapter;
  /**
   * Gate options besides `policy` (`metadata`, `pageSize`, …); `denied: 'explain'` and
   * `missingCapability: 'error'` are refused (hidden must equal unknown), `request` is the kit's.
   */
  readonly gate?: Omit<SdkGateOptions, 'policy'> | Omit<ServerGateOptions, 'policy' | 'request'>;
  /** Who calls (default `callers()`: every real client profile and synthetic clients, headers, endpoints, auth). */
  readonly callers?: fc.Arbitrary<Caller>;
  /** Callers served side by side in one run (default 3). */
  readonly callersPerRun?: number;
  /** Random runs (default 20), after one run per real client profile. */
  readonly numRuns?: number;
  /** Fixed by default so CI is repeatable; the error names it with the replay path. */
  readonly seed?: number;
  readonly path?: string;
  /** Check every profile of `mcp-client-capabilities` once, before the random runs (default true). */
  readonly everyClientProfile?: boolean;
  /** Arguments of each probing `tools/call` (default `{}`: tools with required arguments fail validation before their handler runs). */
  readonly toolArguments?: (name: string) => Record<string, unknown>;
  /** Milliseconds any one request may take (default 10,000). */
  readonly timeout?: number;
  /** Also require the lists to hold exactly what `policy.evaluate` decides (default true). */
  readonly checkPolicy?: boolean;
}

/** What checkGateInvariants checked when every invariant held (it throws GateInvariantError otherwise). */
export interface GateInvariantsReport {
  /** The gate that was checked. */
  readonly adapter: GateAdapter;
  readonly seed: number;
  readonly runs: number;
  readonly callers: number;
  readonly requests: number;
}

/** The fast-check seed checkGateInvariants uses unless told otherwise, so CI runs are repeatable. */
export const defaultSeed = 20261130;

interface Served {
  readonly observation: Observation;
  readonly registry: readonly RegisteredPrimitive[];
  readonly violations: readonly string[];
}

/**
 * Serves random callers from fresh instances of your server behind the gate and throws a
 * GateInvariantError (seed, shrunk callers, every violation) unless, for each caller: listed ⇔
 * usable for tools, prompts, resources and templates; hidden answers equal unknown ones; the
 * registry and its entries are untouched and no list_changed is sent; sequential, concurrent and
 * fresh-gate executions agree; and (by default) the lists are what the policy decides.
 * Works on both gates: mcp-gate/sdk (v1 McpServer) and mcp-gate/server (v2 McpServer, one
 * 2026-07-28 request per server instance), told apart by what `createServer` returns.
 * Runner-agnostic: await it in vitest, jest or node:test.
 */
export async function checkGateInvariants(
  createServer: () => AnyMcpServer | Promise<AnyMcpServer>,
  policy: Policy | PolicyDocument,
  options: CheckGateInvariantsOptions = {},
): Promise<GateInvariantsReport> {
  if (typeof createServer !== 'function') throw new PolicyOptionError('mcp-gate/testing: createServer must be a function returning a new McpServer');
  if (options.gate?.denied === 'explain')
    throw new PolicyOptionError('mcp-gate/testing: option "gate.denied" must be "hide": with "explain", hidden answers differ from unknown ones by design');
  const perRun = positiveInteger(options.callersPerRun ?? 3, 'callersPerRun');
  const timeout = positiveInteger(options.timeout ?? 10_000, 'timeout');
  // One server up front, so a factory that returns something else fails here, not inside a run.
  const driver = await loadDriver(await createServer(), options.adapter);
  const gateOptions = { ...options.gate, policy };
  const sharedGate = driver.createGate(createServer, gateOptions, { timeout });
  const probeOptions = { toolArguments: options.toolArguments ?? (() => ({})), maxPages: 1000, uris: driver.uris };
  let requests = 0;
  let callerCount = 0;

  async function serve(gate: DrivenGate, caller: Caller, concurrent: boolean): Promise<Served> {
    const connection = await gate.connect(caller);
    try {
      const observation = await observe(connection.requests, connection.registry, { ...probeOptions, concurrent });
      requests += observation.requests;
      const violations = connection.changes().map((line) => `registry unchanged: ${line}`);
      return { observation, registry: connection.registry, violations };
    } finally {
      await connection.close();
    }
  }

  async function checkBatch(batch: readonly Caller[]): Promise<string[]> {
    callerCount += batch.length;
    const sequential: Served[] = [];
    for (const caller of batch) sequential.push(await serve(sharedGate, caller, false));
    const concurrent = await Promise.all(batch.map((caller) => serve(sharedGate, caller, true)));
    const freshGate = driver.createGate(createServer, gateOptions, { timeout });
    const fresh: Served[] = [];
    for (const caller of batch) fresh.push(await serve(freshGate, caller, false));
    return batch.flatMap((caller, index) => {
      const [first, second, third] = [sequential[index]!, concurrent[index]!, fresh[index]!];
      const expected = options.checkPolicy === false ? undefined : expectedView(sharedGate.policy, first.registry, caller, { ...options.gate, adapter: driver.adapter });
      const lines = [
        ...first.violations,
        ...second.violations,
        ...third.violations,
        ...checkObservation(first.observation, first.registry, expected),
        ...compareObservations('sequential', first.observation, 'concurrent', second.observation),
        ...compareObservations('sequential', first.observation, 'another server instance and gate', third.observation),
      ];
      return [...new Set(lines)].map((line) => `caller ${index + 1}: ${line}`);
    });
  }

  const batches = fc.array((options.callers ?? callers()).map(driver.servable), { minLength: 1, maxLength: perRun });
  const property = fc.asyncProperty(batches, async (batch) => {
    const violations = await checkBatch(batch);
    if (violations.length > 0) throw new InvariantViolations(violations);
  });
  // Each profile alone, so a failing profile is reported as the one caller it is.
  const examples: [Caller[]][] = options.everyClientProfile === false ? [] : profileCallers().map((caller) => [[driver.servable(caller)]]);
  const details = await fc.check(property, {
    seed: options.seed ?? defaultSeed,
    numRuns: (options.numRuns ?? 20) + examples.length,
    examples,
    ...(options.path === undefined ? {} : { path: options.path }),
  });
  if (details.failed) {
    const error = details.errorInstance;
    throw new GateInvariantError({
      seed: details.seed,
      path: details.counterexamplePath ?? undefined,
      counterexample: details.counterexample?.[0],
      violations:
        error instanceof InvariantViolations ? error.violations : [`the check itself failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`],
      runs: details.numRuns,
      shrinks: details.numShrinks,
    });
  }
  return { adapter: driver.adapter, seed: details.seed, runs: details.numRuns, callers: callerCount, requests };
}

/** The driver for this server, loaded on demand so each SDK stays an optional peer dependency. */
async function loadDriver(server: AnyMcpServer, adapter: GateAdapter | undefined): Promise<GateDriver> {
  const requested = gateAdapterOption(adapter);
  const detected = detectAdapter(server);
  if (requested !== undefined && requested !== detected) {
    const flavours = { sdk: 'McpServer of @modelcontextprotocol/sdk 1.32.x', server: 'McpServer of @modelcontextprotocol/server 2.4.x' };
    throw new PolicyOptionError(`mcp-gate/testing: option "adapter" is "${requested}", but createServer() returned an ${flavours[detected]}`);
  }
  return detected === 'server' ? (await import('./server-driver.js')).serverDriver : (await import('./sdk-driver.js')).sdkDriver;
}

class InvariantViolations extends Error {
  constructor(readonly violations: readonly string[]) {
    super(violations.join('\n'));
  }
}

function positiveInteger(value: number, option: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new PolicyOptionError(`mcp-gate/testing: option "${option}" must be a positive integer, got ${String(value)}`);
  return value;
}
