// npm run load:sessions: does `mcp-gate serve` keep its memory bounded however many clients
// initialize? Opens SESSIONS_OPEN (default 10,000) sessions against the HTTP host that `serve`
// runs (demo server, policies/demo.json, default --max-sessions), each initialized and asked
// tools/list, and never closed, as clients that vanish without DELETE would. Prints the heap after
// a full GC every 1,000 sessions, and the cost per session while under the bound. Exit code 1 if
// more than max sessions stay open, if the heap exceeds the stated bound, or on any error.
//
// Takes about 2 minutes on an idle 2-core machine (about 3 requests and 8 ms of CPU per session),
// much longer on a loaded one. SESSIONS_MAX=20000 SESSIONS_OPEN=3000 shows the unbounded growth.
//
//   SESSIONS_OPEN (default 10000)  SESSIONS_MAX (--max-sessions, default the host's, 1000)
import { readFileSync } from 'node:fs';
import { createDemoServer, demoMetadata } from '../src/demo/demo-server.js';
import { createGate } from '../src/sdk/index.js';
import { defaultMaxSessions, startHttpHost } from '../src/serve/http-host.js';
import { closeAgent, openSession, post } from './raw-mcp.js';
import { collectGarbage, envInt } from './process-env.js';

const toOpen = envInt('SESSIONS_OPEN', 10_000);
const maxSessions = envInt('SESSIONS_MAX', defaultMaxSessions);
const concurrency = 8;
// The stated bound: the heap before the first session, plus 120 kB for each session the host may
// keep (the measured 104 kB, and the closed sessions the gate's session tracking may hold until
// its next sweep: up to 1/16 more, at least 64), plus 32 MB for everything else. Closed sessions
// kept until the tracking doubled (as before) took the heap to ~207 MB, above this bound.
const boundMb = (baseMb: number) => baseMb + (maxSessions * 120) / 1024 + 32;
const deadline = setTimeout(() => {
  console.error('load:sessions: still running after 25 minutes; stopping (this is a failure)');
  process.exit(1);
}, 1_500_000);

const heapMb = () => {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

const policy = JSON.parse(readFileSync('policies/demo.json', 'utf8')) as unknown;
const gate = createGate({ policy: policy as never, metadata: demoMetadata });
// The host's default idle timeout (5 min) never fires in this run: only eviction bounds it.
const host = await startHttpHost({ createServer: createDemoServer, gate, maxSessions });
let failed = false;
try {
  const baseMb = heapMb();
  const bound = boundMb(baseMb);
  console.log(`load:sessions: opening ${toOpen} sessions, --max-sessions ${maxSessions}; heap after GC at start ${baseMb.toFixed(1)} MB, bound ${bound.toFixed(1)} MB`);
  console.log('  sessions opened   open   evicted   heap MB   rss MB');
  let opened = 0;
  let peakMb = baseMb;
  let perSessionKb: number | undefined;
  const step = 1_000;
  while (opened < toOpen) {
    const batch = Math.min(step, toOpen - opened);
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < batch) {
          next++;
          const sessionId = await openSession(host.url, `client-${opened + next}`);
          const listed = await post(host.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, sessionId);
          if (listed.status !== 200 || !listed.body.includes('"search"')) throw new Error(`tools/list answered ${listed.status}: ${listed.body.slice(0, 200)}`);
        }
      }),
    );
    opened += batch;
    if (host.sessionCount > maxSessions) throw new Error(`${host.sessionCount} sessions open, more than --max-sessions ${maxSessions}`);
    const mb = heapMb();
    peakMb = Math.max(peakMb, mb);
    // The cost of one session, from the fill-up to the bound, before any eviction.
    if (perSessionKb === undefined && host.evictedCount === 0) perSessionKb = ((mb - baseMb) * 1024) / host.sessionCount;
    const rss = process.memoryUsage().rss / 1024 / 1024;
    console.log(
      `  ${String(opened).padStart(15)} ${String(host.sessionCount).padStart(6)} ${String(host.evictedCount).padStart(9)} ${mb.toFixed(1).padStart(9)} ${rss.toFixed(1).padStart(8)}`,
    );
  }
  if (perSessionKb !== undefined) console.log(`  cost per open session (heap after GC, before eviction): ${perSessionKb.toFixed(0)} kB`);
  console.log(`  peak heap after GC ${peakMb.toFixed(1)} MB; bound ${bound.toFixed(1)} MB: ${peakMb <= bound ? 'held' : 'EXCEEDED'}`);
  if (peakMb > bound) failed = true;
} catch (error) {
  console.error(`load:sessions: ${error instanceof Error ? error.stack : String(error)}`);
  failed = true;
} finally {
  await host.close();
  closeAgent();
  clearTimeout(deadline);
}
process.exitCode = failed ? 1 : 0;
