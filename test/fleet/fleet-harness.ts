// Two `mcp-gate serve --policy-flag` replicas behind a round-robin balancer on 127.0.0.1, fed by
// one flagd flag file: shared by test/fleet/replicas.test.ts and bench/fleet.ts.
import { spawn } from 'node:child_process';
import { rename, writeFile } from 'node:fs/promises';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { FlagdProvider } from '@openfeature/flagd-provider';
import { OpenFeature } from '@openfeature/server-sdk';
import { listeningUrlIn, waitFor } from '../serve/harness.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';

/** The flag holding the policy, and a flagd flag whose buckets the policy shares. */
export const policyFlagKey = 'mcp-policy';
export const bucketFlagKey = 'new-search';

/**
 * Revision 1 hides the canary tool and shows search; revision 2 shows the canary tool and hides
 * search, so a list that mixed the two would hold both or neither. In both, beta tools (insights)
 * are for the callers flagd puts in the "on" bucket of `new-search`: the policy buckets by
 * `new-search` + the caller, as flagd's fractional does by flag key + targeting key.
 */
export function fleetPolicy(revision: 1 | 2) {
  const inBucket = { '!==': [{ fractional: [{ cat: [bucketFlagKey, { var: 'request.headers.x-user' }] }, ['on', 50], ['off', 50]] }, 'on'] };
  const betaByBucket = { id: 'beta-by-bucket', effect: 'deny', appliesTo: { groups: ['beta'] }, when: inBucket };
  const first = { id: 'canary-off', effect: 'deny', appliesTo: { groups: ['canary'] }, when: true };
  const second = { id: 'search-off', effect: 'deny', appliesTo: { names: ['search'] }, when: true };
  return { version: 1, description: `fleet revision ${revision}`, default: 'allow', rules: [revision === 1 ? first : second, betaByBucket] };
}

export const revisionOf = (document: unknown): string => compilePolicy(document).revision;

/** The tools the demo server lists to a stateless caller under each revision (capability and admin tools stay hidden). */
export function expectedTools(revision: 1 | 2, inBucket: boolean): string[] {
  return [revision === 1 ? 'search' : 'deploy_preview', ...(inBucket ? ['insights'] : [])];
}

/** What `tools/call insights` answers: the tool's text, or the SDK's own "not found" for a hidden tool. */
export const expectedInsights = (inBucket: boolean): string => (inBucket ? '42 calls today' : 'MCP error -32602: Tool insights not found');

export function flagFile(policy: unknown): unknown {
  return {
    flags: {
      [policyFlagKey]: { state: 'ENABLED', defaultVariant: 'current', variants: { current: policy } },
      [bucketFlagKey]: {
        state: 'ENABLED',
        defaultVariant: 'off',
        variants: { on: true, off: false },
        targeting: {
          fractional: [
            ['on', 50],
            ['off', 50],
          ],
        },
      },
    },
  };
}

let writes = 0;
/** Writes as an editor or a ConfigMap update does: a whole new file renamed over the old one. */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.${++writes}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

export interface Replica {
  readonly url: URL;
  stderr(): string;
  /** SIGTERM, then the exit code (SIGKILL after 10 s). */
  stop(): Promise<number | null>;
}

/** `node <bin> serve --port 0 …` as its own process; resolves once it listens. */
export async function startReplica(bin: string, args: readonly string[], cwd: string): Promise<Replica> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let ended = false;
  void exited.then(() => (ended = true));
  const url = await waitFor(
    'serve to listen',
    () => {
      if (ended) throw new Error(`serve exited ${child.exitCode} before listening:\n${stderr}`);
      return listeningUrlIn(stderr);
    },
    90_000,
  );
  return {
    url,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(killer);
      return code;
    },
  };
}

export interface Balancer {
  readonly url: URL;
  close(): Promise<void>;
}

/** A round-robin HTTP balancer on 127.0.0.1: request N goes to replica N mod count; the answer says which in `x-fleet-replica`. */
export async function startBalancer(targets: readonly URL[]): Promise<Balancer> {
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  let next = 0;
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const index = next++ % targets.length;
    const target = targets[index]!;
    const forwarded = request(new URL(incoming.url ?? '/', target), { method: incoming.method, headers: { ...incoming.headers, host: target.host }, agent }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-fleet-replica': String(index) });
      answer.pipe(outgoing);
    });
    forwarded.on('error', (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'x-fleet-replica': String(index) });
      outgoing.end(`balancer: ${error.message}`);
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const clientAgent = new Agent({ keepAlive: true, maxSockets: 64 });

export interface Answer {
  /** Which replica answered (the balancer's `x-fleet-replica`). */
  readonly replica: number;
  readonly status: number;
  readonly message: { result?: unknown; error?: { code: number; message: string } } | undefined;
}

let requestIds = 0;

/** One stateless JSON-RPC request as caller `user` (header x-user), read whole (JSON or one SSE event). */
export function post(url: URL, user: string, method: string, params: unknown): Promise<Answer> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: ++requestIds, method, params });
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent: clientAgent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          'x-user': user,
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const data = /^data: (.*)$/m.exec(text)?.[1] ?? (text.startsWith('{') ? text : undefined);
          resolve({
            replica: Number(incoming.headers['x-fleet-replica']),
            status: incoming.statusCode ?? 0,
            message: data === undefined ? undefined : (JSON.parse(data) as Answer['message']),
          });
        });
      },
    );
    outgoing.setTimeout(15_000, () => outgoing.destroy(new Error(`no answer from ${url.href} within 15 s`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The names `tools/list` gave, or undefined when the answer was not a list. */
export function toolNamesOf(answer: Answer): string[] | undefined {
  const tools = (answer.message?.result as { tools?: { name: string }[] } | undefined)?.tools;
  return tools?.map((tool) => tool.name);
}

/** The text `tools/call` answered (a result's first text, whether or not it is an error result). */
export function callTextOf(answer: Answer): string | undefined {
  const content = (answer.message?.result as { content?: { type: string; text?: string }[] } | undefined)?.content;
  return content?.[0]?.text;
}

export interface BucketOracle {
  /** Whether flagd itself puts `user` in the "on" variant of `new-search` (targetingKey = user). */
  inBucket(user: string): Promise<boolean>;
  close(): Promise<void>;
}

/** flagd's own evaluation: its in-process provider on the same flag file, in this process. */
export async function createBucketOracle(flagFilePath: string): Promise<BucketOracle> {
  const domain = `mcp-gate-fleet-oracle-${process.pid}-${++writes}`;
  const provider = new FlagdProvider({ resolverType: 'in-process', offlineFlagSourcePath: flagFilePath });
  await OpenFeature.setProviderAndWait(domain, provider);
  const client = OpenFeature.getClient(domain);
  return {
    async inBucket(user) {
      const details = await client.getBooleanDetails(bucketFlagKey, false, { targetingKey: user });
      if (details.reason !== 'TARGETING_MATCH') throw new Error(`flagd did not bucket ${user}: ${JSON.stringify(details)}`);
      return details.value;
    },
    close: () => provider.onClose(),
  };
}

export interface LoadResult {
  readonly requests: number;
  readonly errors: number;
  readonly wrong: number;
  readonly perReplica: readonly number[];
  readonly latenciesMs: readonly number[];
  readonly firstProblem: string | undefined;
}

/**
 * `clients` callers at once, each sending `requestsPerClient` requests through the balancer,
 * alternating `tools/list` and `tools/call insights`, each answer compared with what `revision`
 * and flagd's bucket of its caller say it must be.
 */
export async function runLoad(
  url: URL,
  options: { clients: number; requestsPerClient: number; users: readonly string[]; buckets: ReadonlyMap<string, boolean>; revision: 1 | 2 },
): Promise<LoadResult> {
  let errors = 0;
  let wrong = 0;
  let firstProblem: string | undefined;
  const perReplica: number[] = [];
  const latenciesMs: number[] = [];
  const problem = (text: string) => (firstProblem ??= text);
  await Promise.all(
    Array.from({ length: options.clients }, async (_, client) => {
      for (let index = 0; index < options.requestsPerClient; index++) {
        const user = options.users[(client * options.requestsPerClient + index) % options.users.length]!;
        const inBucket = options.buckets.get(user)!;
        const listing = index % 2 === 0;
        const started = performance.now();
        let answer: Answer;
        try {
          answer = listing ? await post(url, user, 'tools/list', {}) : await post(url, user, 'tools/call', { name: 'insights', arguments: {} });
        } catch (error) {
          errors++;
          problem(`${user}: ${error instanceof Error ? error.message : String(error)}`);
          continue;
        }
        latenciesMs.push(performance.now() - started);
        perReplica[answer.replica] = (perReplica[answer.replica] ?? 0) + 1;
        if (answer.status !== 200 || answer.message === undefined || answer.message.error !== undefined) {
          errors++;
          problem(`${user}: HTTP ${answer.status} ${JSON.stringify(answer.message)}`);
          continue;
        }
        const actual = listing ? JSON.stringify(toolNamesOf(answer)) : JSON.stringify(callTextOf(answer));
        const expected = listing ? JSON.stringify(expectedTools(options.revision, inBucket)) : JSON.stringify(expectedInsights(inBucket));
        if (actual !== expected) {
          wrong++;
          problem(`${user} via replica ${answer.replica}: ${actual}, expected ${expected}`);
        }
      }
    }),
  );
  return { requests: options.clients * options.requestsPerClient, errors, wrong, perReplica, latenciesMs, firstProblem };
}
