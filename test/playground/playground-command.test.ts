// `mcp-gate playground` without a browser: what it serves, to whom, and its errors.
import { request } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDistOnce } from '../built-dist.js';
import { runCli, startCli, waitForUrl, type CliRun } from './browser.js';

interface Answer {
  readonly status: number;
  readonly type: string | undefined;
  readonly body: string;
}

function get(url: string, options: { method?: string; host?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const sent = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: target.pathname,
        method: options.method ?? 'GET',
        headers: options.host === undefined ? {} : { host: options.host },
        timeout: 5_000,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'], body }));
      },
    );
    sent.on('error', reject);
    sent.on('timeout', () => sent.destroy(new Error(`${url}: no answer in 5 s`)));
    sent.end();
  });
}

let cli: CliRun;
let url: string;
let policyPath: string;
const hostilePolicy = `{ "version": 1, "default": "allow", "description": "</script><script>alert(1)</script>" }\n`;

beforeAll(async () => {
  expect(await buildDistOnce(), 'npm run build --noCheck').toBe('');
  const directory = mkdtempSync(join(tmpdir(), 'mcp-gate-playground-command-'));
  policyPath = join(directory, 'policy.json');
  writeFileSync(policyPath, hostilePolicy);
  cli = startCli(['playground', '--policy', policyPath, '--manifest', 'policies/demo.manifest.json', '--port', '0']);
  url = await waitForUrl(cli);
}, 180_000);

afterAll(async () => {
  if (cli) await cli.stop();
});

describe('mcp-gate playground', () => {
  it('serves the page with the policy text and the primitives preloaded as a JSON block that cannot end itself', async () => {
    const page = await get(url);
    expect(page).toMatchObject({ status: 200, type: 'text/html; charset=utf-8' });
    const block = /<script type="application\/json" id="mcp-gate-preload">(.*?)<\/script>/.exec(page.body);
    expect(block).not.toBeNull();
    expect(block![1]).not.toContain('<');
    const preload = JSON.parse(block![1]!) as { policy: string; policyFile: string; primitives: Array<{ name: string }> };
    expect(preload.policy).toBe(hostilePolicy);
    expect(preload.policyFile).toBe('policy.json');
    expect(preload.primitives.map((primitive) => primitive.name)).toContain('deploy_preview');
    expect(page.body).toContain('<script src="playground.js" defer></script>');
  });

  it('serves the one bundled script, and nothing else', async () => {
    const script = await get(`${url}playground.js`);
    expect(script.status).toBe(200);
    expect(script.type).toBe('text/javascript; charset=utf-8');
    expect(script.body).not.toMatch(/\bimport\s*\(|^import\s/m);
    expect(await get(`${url}../package.json`)).toMatchObject({ status: 404 });
    expect(await get(`${url}index.js`)).toMatchObject({ status: 404 });
    expect(await get(url, { method: 'POST' })).toMatchObject({ status: 405 });
  });

  it('answers only requests addressed to 127.0.0.1 or localhost (no DNS rebinding)', async () => {
    const port = new URL(url).port;
    expect(await get(url, { host: `localhost:${port}` })).toMatchObject({ status: 200 });
    expect(await get(url, { host: `attacker.example:${port}` })).toEqual({ status: 403, type: 'text/plain; charset=utf-8', body: 'forbidden host\n' });
  });

  it('says so when the port is in use', async () => {
    const port = new URL(url).port;
    expect(await runCli(['playground', '--port', port])).toEqual({
      code: 1,
      stdout: '',
      stderr: `mcp-gate playground: port ${port} on 127.0.0.1 is in use; pick another with --port N (0 picks a free one)\n`,
    });
  });

  it('rejects a bad port, an unreadable policy and both --manifest and --server', async () => {
    expect(await runCli(['playground', '--port', '70000'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mcp-gate playground: --port must be a number from 0 to 65535, got "70000"\n',
    });
    expect(await runCli(['playground', '--policy', 'no-such-policy.json', '--port', '0'])).toEqual({ code: 1, stdout: '', stderr: 'no-such-policy.json: no such file\n' });
    expect(await runCli(['playground', '--manifest', 'a.json', '--server', 'b.js', '--port', '0'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mcp-gate playground: pass either --manifest or --server, not both\n',
    });
  });

  it('stops on the signal and says so', async () => {
    const other = startCli(['playground', '--port', '0']);
    const otherUrl = await waitForUrl(other);
    expect(other.stdout()).toBe(`mcp-gate playground: ${otherUrl} (the demo policy, the demo server's primitives); Ctrl-C stops\n`);
    expect(await other.stop()).toBe(0);
    expect(other.stdout()).toMatch(/\nmcp-gate playground: stopped\n$/);
    await expect(get(otherUrl)).rejects.toThrow(/ECONNREFUSED/);
  });
});
