// Per-request cost of mcp-gate/server under stateless serving: createMcpHandler builds a fresh
// McpServer per request and the gate is installed on each. Side by side in one process, on the
// demo registry: building that server's catalog afresh (what every install did before
// src/adapter/shared-catalogs.ts) against the shared catalogs an install uses now, and the whole
// install on a fresh server. Run: npx tsx bench/server-install.ts
import { buildCatalog } from '../src/adapter/catalog.js';
import { SharedCatalogs } from '../src/adapter/shared-catalogs.js';
import { createGate } from '../src/server/index.js';
import { readInternals, readSources } from '../src/server/server-internals.js';
import { createDemoServerV2 } from '../test/testing/server-fixtures.js';
import { demoPolicy } from '../test/testing/fixtures.js';
import { measure, type BenchCase } from './measure.js';

const settings = { annotations: new Map(), versionSeparator: '__' };
const shared = new SharedCatalogs(settings);
const gate = createGate({ policy: demoPolicy });
// Servers are built outside the timed loops (a pool reused round-robin): only the gate's work is timed.
const servers = Array.from({ length: 64 }, () => createDemoServerV2());
const sourcesOf = servers.map((server) => () => readSources(readInternals(server)));
let next = 0;
const nextSources = () => sourcesOf[next++ % sourcesOf.length]!;

const cases: BenchCase[] = [
  { id: 'catalog.fresh', label: 'catalog built afresh (before)', opsPerRun: 1, run: () => buildCatalog(nextSources()(), { version: 1, ...settings }).entries('tool').length },
  { id: 'catalog.shared', label: 'catalog from shared entries (after)', opsPerRun: 1, run: () => shared.catalog(nextSources()(), 1).entries('tool').length },
  {
    id: 'install.fresh-server',
    label: 'gate.install on a fresh server (incl. creating it)',
    opsPerRun: 1,
    run: () => {
      gate.install(createDemoServerV2());
      return 1;
    },
  },
  { id: 'server.create', label: 'creating the server alone', opsPerRun: 1, run: () => (createDemoServerV2() === undefined ? 0 : 1) },
];

const results = measure(cases, { warmupMs: 500, batchMs: 20, samples: 30, minSamples: 5, caseBudgetMs: 2000 });
for (const { id, p50: median, p25, p75 } of results)
  console.log(`${id}: p50 ${(median / 1000).toFixed(1)} µs (p25 ${(p25 / 1000).toFixed(1)}, p75 ${(p75 / 1000).toFixed(1)})`);
const p50 = (id: string) => results.find((result) => result.id === id)!.p50;
console.log(
  `catalog per install: ${(p50('catalog.fresh') / 1000).toFixed(1)} µs afresh, ${(p50('catalog.shared') / 1000).toFixed(1)} µs shared (${(p50('catalog.fresh') / p50('catalog.shared')).toFixed(2)}×)`,
);
console.log(`install alone: ${((p50('install.fresh-server') - p50('server.create')) / 1000).toFixed(1)} µs`);
