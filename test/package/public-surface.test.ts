// The public surface, read from the source of each entry point with the TypeScript compiler: the
// names each one exports (a new or dropped export must change this file on purpose) and a doc
// comment on every one, since that comment is what a user reads in their editor.
import ts from 'typescript';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/index.js';
import packageJson from '../../package.json' with { type: 'json' };

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** package.json `exports` → the source module tsc builds each entry point from. */
const entryPoints = {
  '.': 'src/index.ts',
  './sdk': 'src/sdk/index.ts',
  './server': 'src/server/index.ts',
  './testing': 'src/testing/index.ts',
  './otel': 'src/otel/index.ts',
  './openfeature': 'src/openfeature/index.ts',
  './lowlevel': 'src/lowlevel/index.ts',
} as const;

type EntryPoint = keyof typeof entryPoints;

const expectedExports: Record<EntryPoint, readonly string[]> = {
  '.': [
    'CompileLimits',
    'CompileLogicOptions',
    'CompilePolicyOptions',
    'CompilePredicateOptions',
    'CompiledLogic',
    'CustomOperators',
    'Decision',
    'DecisionReason',
    'Effect',
    'EvaluationErrorHandler',
    'MetadataError',
    'Policy',
    'PolicyCompileError',
    'PolicyDocument',
    'PolicyError',
    'PolicyEvaluationError',
    'PolicyIssue',
    'PolicyIssueCode',
    'PolicyIssueSeverity',
    'PolicyOptionError',
    'PolicyRule',
    'PolicyRuleSummary',
    'Predicate',
    'PrimitiveAnnotation',
    'PrimitiveKind',
    'PrimitiveMetadata',
    'RequestContext',
    'RequestContextError',
    'RequestContextInput',
    'UnmetRequirement',
    'VisibilityFilter',
    'VisibilityFilterOptions',
    'compileLogic',
    'compilePolicy',
    'compilePredicate',
    'createPolicyJsonSchema',
    'createPrimitiveMetadata',
    'createRequestContext',
    'createVisibilityFilter',
    'isTruthy',
    'policyDocumentSchema',
    'primitiveAnnotationSchema',
    'primitiveKindSchema',
    'primitiveMetadataSchema',
    'requestContextSchema',
    'toPolicyIssues',
  ],
  './sdk': ['DecisionEvent', 'DeniedMode', 'Gate', 'GateOptions', 'InvalidCursorError', 'ListCounts', 'MissingCapabilities', 'createGate', 'gate'],
  './server': [
    'DecisionEvent',
    'DeniedMode',
    'Gate',
    'GateOptions',
    'InstallOptions',
    'InvalidCursorError',
    'ListCounts',
    'MissingCapabilities',
    'MissingCapabilityMode',
    'createGate',
    'gate',
  ],
  './testing': [
    'AnnotationOptions',
    'AnnotationSource',
    'AnyMcpServer',
    'BrokenPolicy',
    'Caller',
    'CallerAuth',
    'CallerConnection',
    'CallerOptions',
    'CheckGateInvariantsOptions',
    'DefectClass',
    'ExpectedIssue',
    'ExpectedView',
    'GateAdapter',
    'GateInvariantError',
    'GateInvariantsReport',
    'OracleOptions',
    'PolicyDocumentOptions',
    'PrimitiveMetadataOptions',
    'RegisteredPrimitive',
    'Registry',
    'RegistryOptions',
    'RegistryPrompt',
    'RegistryResource',
    'RegistryServerOptions',
    'RegistryTemplate',
    'RegistryTool',
    'RequestContextOptions',
    'annotations',
    'brokenPolicyDocuments',
    'callers',
    'capabilitiesSeenByServer',
    'capabilityPaths',
    'checkGateInvariants',
    'clientCapabilities',
    'conditions',
    'connectAsCaller',
    'createRegistryServer',
    'defaultCallerDomains',
    'defaultSeed',
    'expectedView',
    'policyDocuments',
    'primitiveKinds',
    'primitiveMetadata',
    'profileCallers',
    'readRegistry',
    'registries',
    'registryMetadata',
    'requestContexts',
    'toRequestContext',
  ],
  './otel': [
    'DecisionVariant',
    'FlagResultReason',
    'OtelDecisionsOption',
    'OtelDecisionsOptions',
    'evaluationEventName',
    'hiddenStatusCode',
    'instrumentationScope',
    'otelDecisions',
    'providerName',
  ],
  './openfeature': [
    'PolicyFlagError',
    'PolicyFlagProblem',
    'PolicyFlagWatch',
    'PolicyTarget',
    'ReadPolicyFlagOptions',
    'WatchPolicyFlagOptions',
    'readPolicyFlag',
    'watchPolicyFlag',
  ],
  './lowlevel': [
    'DecisionEvent',
    'FastMCPInstance',
    'FastMCPSessionInstance',
    'Gate',
    'GateOptions',
    'McpFrameworkServerInstance',
    'MissingCapabilities',
    'Overlay',
    'OverlayDocument',
    'compileOverlay',
    'createGate',
    'gate',
    'gateFastMCP',
    'gateMcpFramework',
  ],
};

interface PublicExport {
  readonly name: string;
  /** The doc comment of the declaration the name resolves to (through re-exports), '' when none. */
  readonly doc: string;
  /** Where that declaration is, as `src/…/file.ts`. */
  readonly declaredIn: string;
}

let surface: Record<EntryPoint, readonly PublicExport[]>;

beforeAll(() => {
  const config = ts.getParsedCommandLineOfConfigFile(`${repositoryRoot}tsconfig.json`, undefined, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error('tsconfig.json could not be read');
  // Only our sources are parsed: a dependency's declarations (the SDKs, zod, fast-check, lib.d.ts)
  // read as empty modules, which is all that names and doc comments need and saves most of the time.
  const options: ts.CompilerOptions = { ...config.options, noEmit: true, noLib: true, types: [] };
  const host = ts.createCompilerHost(options);
  const readSource = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    fileName.includes('/node_modules/') ? ts.createSourceFile(fileName, 'export {};', languageVersion) : readSource(fileName, languageVersion, ...rest);
  const program = ts.createProgram(
    Object.values(entryPoints).map((file) => `${repositoryRoot}${file}`),
    options,
    host,
  );
  const checker = program.getTypeChecker();
  const read = (file: string): PublicExport[] => {
    const module = checker.getSymbolAtLocation(program.getSourceFile(`${repositoryRoot}${file}`)!)!;
    return checker.getExportsOfModule(module).map((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const declaration = target.declarations?.[0];
      return {
        name: symbol.name,
        doc: ts.displayPartsToString(target.getDocumentationComment(checker)).trim(),
        declaredIn: declaration ? declaration.getSourceFile().fileName.slice(repositoryRoot.length) : '(no declaration)',
      };
    });
  };
  surface = Object.fromEntries(Object.entries(entryPoints).map(([entry, file]) => [entry, read(file)])) as unknown as Record<EntryPoint, readonly PublicExport[]>;
}, 60_000);

describe('public surface', () => {
  it('pins every entry point package.json exports', () => {
    const exported = Object.keys(packageJson.exports).filter((entry) => entry !== './package.json');
    expect(exported.sort()).toEqual(Object.keys(entryPoints).sort());
  });

  for (const entry of Object.keys(entryPoints) as EntryPoint[]) {
    it(`exports exactly the pinned names from mcp-gate${entry === '.' ? '' : entry.slice(1)}`, () => {
      expect(surface[entry].map((exported) => exported.name).sort()).toEqual([...expectedExports[entry]].sort());
    });

    it(`gives every export of mcp-gate${entry === '.' ? '' : entry.slice(1)} a doc comment`, () => {
      const undocumented = surface[entry].filter((exported) => exported.doc === '').map((exported) => `${exported.name} (${exported.declaredIn})`);
      expect(undocumented).toEqual([]);
    });
  }

  it('keeps the whole-policy context key off a compiled Policy (adapters key with contextKeyFor)', () => {
    const policy = compilePolicy({ version: 1, default: 'allow' });
    expect(Object.keys(policy)).not.toContain('contextKey');
    expect('contextKey' in policy).toBe(false);
  });
});
