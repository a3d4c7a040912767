import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathnameOf } from '../../src/adapter/request-input.js';

/** What the endpoint was read as before: the URL parsed again. */
function parsedPathname(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

describe('pathnameOf', () => {
  it('reads the path of a serialized Request URL as the URL parser does', () => {
    const urls = [
      'http://127.0.0.1:3000/mcp/admin',
      'http://127.0.0.1:3000/mcp/admin?tenant=a/b#x/y',
      'http://127.0.0.1/mcp#frag?not-a-query',
      'http://127.0.0.1',
      'https://user:p%2Fss@example.com:8443/a/b/',
      'http://[::1]:3000/mcp/%7Euser',
      'http://example.com/a b/ä?x',
      'file:///srv/mcp',
    ];
    // Request#url is the URL parser's serialization (a Request refuses credentials, so href stands in).
    for (const url of urls) expect(pathnameOf(new URL(url).href), url).toBe(parsedPathname(url));
    expect(pathnameOf(new Request('http://127.0.0.1:3000/mcp/admin?x=/y').url)).toBe('/mcp/admin');
  });

  it('agrees with the URL parser on generated URLs', () => {
    const segment = fc.stringMatching(/^[a-zA-Z0-9._~%!$&'()*+,;=:@ -]{0,8}$/);
    const url = fc.record({
      scheme: fc.constantFrom('http', 'https'),
      user: fc.option(fc.stringMatching(/^[a-z/:@]{1,4}$/), { nil: undefined }),
      host: fc.constantFrom('127.0.0.1', 'localhost', '[::1]', 'example.com'),
      port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
      path: fc.array(segment, { maxLength: 4 }),
      query: fc.option(fc.stringMatching(/^[a-z/?#=&]{0,6}$/), { nil: undefined }),
    });
    fc.assert(
      fc.property(url, ({ scheme, user, host, port, path, query }) => {
        const userinfo = user === undefined ? '' : `${encodeURIComponent(user)}@`;
        const text = `${scheme}://${userinfo}${host}${port === undefined ? '' : `:${port}`}/${path.join('/')}${query === undefined ? '' : `?${query}`}`;
        if (!URL.canParse(text)) return;
        expect(pathnameOf(new URL(text).href)).toBe(parsedPathname(text));
      }),
    );
  });

  it('parses what is not a serialized URL', () => {
    expect(pathnameOf('not a url')).toBe('');
    expect(pathnameOf('mailto:someone@example.com')).toBe('someone@example.com');
  });
});
