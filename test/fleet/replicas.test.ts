// Issue 14, "Replicas that agree": two `mcp-gate serve --policy-flag` processes (the built bin)
// behind a round-robin balancer on 127.0.0.1, fed by one flagd flag file. The processes are
// shared by the tests below, which run in order: the file's state carries from one to the next.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDistOnce, builtBin } from '../built-dist.js';
import { repositoryRoot, waitFor } from '../serve/harness.js';
import {
  createBucketOracle,
  expectedTools,
  flagFile,
  fleetPolicy,
  post,
  revisionOf,
  runLoad,
  startBalancer,
  startReplica,
  toolNamesOf,
  writeAtomically,
  type Balancer,
  type BucketOracle,
  type Replica,
} from './fleet-harness.js';

const users = Array.from({ length: 12 }, (_, index) => `user-${index}@example.com`);
const [first, second] = [revisionOf(fleetPolicy(1)), revisionOf(fleetPolicy(2))];

let directory: string;
let flagsPath: string;
const replicas: Replica[] = [];
let balancer: Balancer | undefined;
let oracle: BucketOracle | undefined;
/** flagd's own bucket of each user, from its in-process provider in this process. */
const buckets = new Map<string, boolean>();

beforeAll(async () => {
  expect(await buildDistOnce(), 'npm run build --noCheck').toBe('');
  directory = await mkdtemp(join(tmpdir(), 'mcp-gate-fleet-'));
  flagsPath = join(directory, 'flags.json');
  await writeAtomically(flagsPath, JSON.stringify(flagFile(fleetPolicy(1)), null, 2));
  const args = (index: number) => [
    '--stateless',
    '--policy-flag',
    'mcp-policy',
    '--flagd-file',
    flagsPath,
    '--flagd-poll-interval',
    '50',
    '--decision-log',
    join(directory, `decisions-${index}.jsonl`),
  ];
  // Each replica is kept as soon as it listens, so afterAll stops it even when the other failed to start.
  const started = await Promise.allSettled([0, 1].map(async (index) => (replicas[index] = await startReplica(builtBin, args(index), repositoryRoot))));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  oracle = await createBucketOracle(flagsPath);
  balancer = await startBalancer(replicas.map((replica) => replica.url));
  for (const user of users) buckets.set(user, await oracle.inBucket(user));
}, 240_000);

afterAll(async () => {
  await balancer?.close();
  await oracle?.close();
  const running = replicas.filter((replica) => replica !== undefined);
  const codes = await Promise.all(running.map((replica) => replica.stop()));
  await rm(directory, { recursive: true, force: true });
  expect(codes).toEqual(running.map(() => 0));
}, 30_000);

/** Makes a change, then waits until every replica has written `text` to stderr since. */
async function changeReachesBoth(change: () => Promise<void>, text: string): Promise<void> {
  const marks = replicas.map((replica) => replica.stderr().length);
  await change();
  await waitFor(
    `${JSON.stringify(text)} from both replicas`,
    () => (replicas.every((replica, index) => replica.stderr().slice(marks[index]).includes(text)) ? true : undefined),
    15_000,
  );
}

/** The policy flag events of a replica's decision log, once there are `count` (the log is written off the response path). */
async function flagEventsOf(index: number, count: number): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = await readFile(join(directory, `decisions-${index}.jsonl`), 'utf8');
    const events = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record['event'] === 'policy_flag_error');
    if (events.length >= count || Date.now() > deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('two serve replicas behind a round-robin balancer, one flagd flag file', () => {
  it('start on the same revision', () => {
    for (const replica of replicas)
      expect(replica.stderr()).toContain(`mcp-gate serve: policy flag mcp-policy (revision ${first}) in front of the demo server: 13 primitives\n`);
  });

  it("give each caller the same list from either replica, request after request, and put them in flagd's own fractional bucket", async () => {
    const inBucket = users.filter((user) => buckets.get(user));
    // 12 users at 50/50: both buckets are populated, so the comparison below can fail either way.
    expect(inBucket.length).toBeGreaterThan(0);
    expect(inBucket.length).toBeLessThan(users.length);
    for (const user of users) {
      const answers = [];
      for (let round = 0; round < 2; round++) answers.push(await post(balancer!.url, user, 'tools/list', {}));
      // One request at a time: the balancer alternates, so each caller is answered by both replicas.
      expect(new Set(answers.map((answer) => answer.replica))).toEqual(new Set([0, 1]));
      expect(answers.map(toolNamesOf), user).toEqual(answers.map(() => expectedTools(1, buckets.get(user)!)));
    }
  });

  it('answer a bounded load across both replicas with 0 errors and 0 wrong answers', async () => {
    const result = await runLoad(balancer!.url, { clients: 4, requestsPerClient: 20, users, buckets, revision: 1 });
    expect({ errors: result.errors, wrong: result.wrong, firstProblem: result.firstProblem }).toEqual({ errors: 0, wrong: 0, firstProblem: undefined });
    expect(result.perReplica).toEqual([40, 40]);
  });

  it('take a policy change in the file within the poll interval, and no answer mixes two revisions', async () => {
    const seen: Array<Array<1 | 2>> = [[], []];
    const marks = replicas.map((replica) => replica.stderr().length);
    await writeAtomically(flagsPath, JSON.stringify(flagFile(fleetPolicy(2)), null, 2));
    const changed = `mcp-gate serve: flag mcp-policy changed: revision ${first} → ${second}\n`;
    const bothChanged = () => replicas.every((replica, index) => replica.stderr().slice(marks[index]).includes(changed));
    const deadline = Date.now() + 15_000;
    // Requests go on while the change spreads: each answer is one revision's whole list, never a mix.
    for (let index = 0; !bothChanged() || seen.some((revisions) => revisions.at(-1) !== 2); index++) {
      if (Date.now() > deadline) throw new Error(`the change did not reach both replicas within 15 s:\n${replicas.map((replica) => replica.stderr()).join('\n')}`);
      const user = users[index % users.length]!;
      const answer = await post(balancer!.url, user, 'tools/list', {});
      const names = toolNamesOf(answer);
      const revision = JSON.stringify(names) === JSON.stringify(expectedTools(1, buckets.get(user)!)) ? 1 : 2;
      expect(names, `${user} via replica ${answer.replica}`).toEqual(expectedTools(revision, buckets.get(user)!));
      seen[answer.replica]!.push(revision);
    }
    // Per replica the revisions only move forward: 1 … 1 2 … 2.
    for (const revisions of seen) expect(revisions.slice(revisions.indexOf(2))).not.toContain(1);
    const after = await runLoad(balancer!.url, { clients: 2, requestsPerClient: 6, users, buckets, revision: 2 });
    expect({ errors: after.errors, wrong: after.wrong, firstProblem: after.firstProblem }).toEqual({ errors: 0, wrong: 0, firstProblem: undefined });
  });

  it('stay on the revision in force when the file breaks, and both say so on stderr and in the decision log', async () => {
    const invalid = { ...fleetPolicy(2), rules: [{ id: 'typo', effect: 'alow' }] };
    await changeReachesBoth(
      () => writeAtomically(flagsPath, JSON.stringify(flagFile(invalid))),
      `mcp-gate serve: flag mcp-policy not applied (invalid_document); still serving revision ${second}\nflag mcp-policy: rules[0].effect: `,
    );
    await changeReachesBoth(
      () => writeAtomically(flagsPath, '{"flags": {"mcp-policy": '),
      `mcp-gate serve: flagd: Error reading file: ParseError: invalid flagd flag configuration; still serving revision ${second}\n`,
    );
    const still = await runLoad(balancer!.url, { clients: 2, requestsPerClient: 4, users, buckets, revision: 2 });
    expect({ errors: still.errors, wrong: still.wrong, firstProblem: still.firstProblem }).toEqual({ errors: 0, wrong: 0, firstProblem: undefined });
    for (const index of [0, 1]) {
      const events = await flagEventsOf(index, 2);
      expect(events.map(({ problem, policyRevision }) => ({ problem, policyRevision }))).toEqual([
        { problem: 'invalid_document', policyRevision: second },
        { problem: 'flagd', policyRevision: second },
      ]);
    }
  });
});
