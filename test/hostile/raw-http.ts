import { request } from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** JSON-RPC messages of the body (plain JSON or an SSE stream). */
  readonly messages: readonly Record<string, unknown>[];
  readonly text: string;
}

const requestTimeout = 10_000;

/**
 * POSTs bytes exactly as given, headers included (an array value sends the header once per
 * element), the way a hostile client would; the SDK's client cannot send most of these.
 */
export function rawPost(url: URL, body: string, headers: Record<string, string | string[]> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', timeout: requestTimeout }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, messages: parseMessages(text), text });
      });
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${requestTimeout} ms`)));
    outgoing.on('error', reject);
    outgoing.setHeader('content-type', 'application/json');
    outgoing.setHeader('accept', 'application/json, text/event-stream');
    for (const [name, value] of Object.entries(headers)) outgoing.setHeader(name, value);
    outgoing.end(body);
  });
}

function parseMessages(text: string): Record<string, unknown>[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const parsed = JSON.parse(trimmed) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
}

let nextId = 1;

export function jsonRpc(method: string, params?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) });
}

/** initialize + notifications/initialized, as raw requests; returns the session id. */
export async function openSession(
  url: URL,
  capabilities: unknown,
  headers: Record<string, string | string[]> = {},
): Promise<{ sessionId: string | undefined; response: RawResponse }> {
  const response = await rawPost(url, jsonRpc('initialize', { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'raw-client', version: '1.0.0' } }), headers);
  const sessionId = response.headers['mcp-session-id'] as string | undefined;
  if (sessionId !== undefined) {
    await rawPost(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
      ...headers,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    });
  }
  return { sessionId, response };
}

/** One request in a session; returns its response message (the last message of the answer). */
export async function call(url: URL, sessionId: string, method: string, params?: unknown, headers: Record<string, string | string[]> = {}): Promise<Record<string, unknown>> {
  const response = await rawPost(url, jsonRpc(method, params), { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18', ...headers });
  const message = response.messages.at(-1);
  if (!message) throw new Error(`no JSON-RPC message in the answer (HTTP ${response.status}): ${response.text.slice(0, 200)}`);
  return message;
}
