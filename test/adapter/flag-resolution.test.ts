import { InMemoryProvider, OpenFeature } from '@openfeature/server-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { createFlagResolver, evaluationContextOf, type FlagClient } from '../../src/adapter/flag-resolution.js';
import { createRequestContext, maxCopiedValues } from '../../src/core/context.js';
import { PolicyOptionError } from '../../src/core/errors.js';
import { flagFallbacksOf } from '../../src/core/flag-values.js';

afterAll(async () => {
  await OpenFeature.clearProviders();
});

async function inMemoryClient(flags: ConstructorParameters<typeof InMemoryProvider>[0]) {
  const domain = `flag-resolution-${Math.random()}`;
  await OpenFeature.setProviderAndWait(domain, new InMemoryProvider(flags));
  return OpenFeature.getClient(domain);
}

describe('evaluationContextOf', () => {
  it('takes the targeting key from auth.subject, else auth.clientId, else the session id', () => {
    const context = (auth: Record<string, string>, sessionId?: string) => createRequestContext({ auth, request: sessionId === undefined ? {} : { sessionId } });
    expect(evaluationContextOf(context({ subject: 'alice', clientId: 'app' }, 's-1'), [])).toEqual({ targetingKey: 'alice' });
    expect(evaluationContextOf(context({ clientId: 'app' }, 's-1'), [])).toEqual({ targetingKey: 'app' });
    expect(evaluationContextOf(context({}, 's-1'), [])).toEqual({ targetingKey: 's-1' });
    expect(evaluationContextOf(context({}), [])).toEqual({});
  });

  it('passes the client name and only the allow-listed headers', () => {
    const context = createRequestContext({ client: { name: 'cursor' }, request: { headers: { 'x-team': 'red', authorization: 'Bearer secret' } } });
    expect(evaluationContextOf(context, ['x-team', 'x-absent'])).toEqual({ client: { name: 'cursor' }, request: { headers: { 'x-team': 'red' } } });
  });
});

describe('createFlagResolver', () => {
  const report = () => undefined;

  it('names the option and the value it rejects', () => {
    expect(() => createFlagResolver(null as never, report)).toThrow(new PolicyOptionError('mcp-gate: option "flags" must be an object with a "client", got null'));
    expect(() => createFlagResolver({ client: {} as never }, report)).toThrow(
      'mcp-gate: option "flags.client" must be an OpenFeature client (OpenFeature.getClient() of @openfeature/server-sdk)',
    );
    const client = { getBooleanDetails: () => undefined, getStringDetails: () => undefined, getNumberDetails: () => undefined, getObjectDetails: () => undefined } as never;
    expect(() => createFlagResolver({ client, timeoutMs: 0 }, report)).toThrow('mcp-gate: option "flags.timeoutMs" must be a positive number of milliseconds, got 0');
    expect(() => createFlagResolver({ client, headers: 'x-team' as never }, report)).toThrow('mcp-gate: option "flags.headers" must be an array of header names');
    expect(createFlagResolver({ client, headers: ['X-Team'] }, report)?.headers).toEqual(['x-team']);
  });

  it('resolves each flag as the type of its default; a value of another type holds the default', async () => {
    const client = await inMemoryClient({
      limit: { variants: { v: 5 }, defaultVariant: 'v', disabled: false },
      tier: { variants: { v: 'gold' }, defaultVariant: 'v', disabled: false },
      shape: { variants: { v: { max: 3 } }, defaultVariant: 'v', disabled: false },
      wrong: { variants: { v: 'yes' }, defaultVariant: 'v', disabled: false },
    });
    const errors: Error[] = [];
    const resolver = createFlagResolver({ client }, (error) => errors.push(error))!;
    const context = await resolver.resolve(createRequestContext(), { limit: 1, tier: 'basic', shape: { max: 1 }, wrong: false });
    expect(context.flags).toEqual({ limit: 5, tier: 'gold', shape: { max: 3 }, wrong: false });
    expect(flagFallbacksOf(context).map(({ key }) => key)).toEqual(['wrong']);
    expect(errors.map((error) => error.message)).toEqual([expect.stringMatching(/^mcp-gate: flag "wrong" fell back to its default false \(TYPE_MISMATCH/)]);
  });

  it('holds the default for a client that throws, and says so', async () => {
    const failing: FlagClient = {
      getBooleanDetails: () => Promise.reject(new Error('connection refused')),
      getStringDetails: () => Promise.reject(new Error('connection refused')),
      getNumberDetails: () => Promise.reject(new Error('connection refused')),
      getObjectDetails: () => Promise.reject(new Error('connection refused')),
    };
    const resolver = createFlagResolver({ client: failing }, () => undefined)!;
    const context = await resolver.resolve(createRequestContext(), { beta: true });
    expect(context.flags).toEqual({ beta: true });
    expect(flagFallbacksOf(context)).toEqual([{ key: 'beta', value: true, why: 'the client failed: connection refused' }]);
  });

  it('holds every default when a resolved JSON value is too large to copy into the context', async () => {
    const huge = Object.fromEntries(Array.from({ length: maxCopiedValues + 1 }, (_, index) => [`k${index}`, index]));
    const client = await inMemoryClient({ shape: { variants: { v: huge }, defaultVariant: 'v', disabled: false } });
    const errors: Error[] = [];
    const resolver = createFlagResolver({ client }, (error) => errors.push(error))!;
    const context = await resolver.resolve(createRequestContext(), { shape: { small: true } });
    expect(context.flags).toEqual({ shape: { small: true } });
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringMatching(/^mcp-gate: flag "shape" fell back to its default \{"small":true\} \(a resolved value could not be copied: /),
    ]);
  });
});
