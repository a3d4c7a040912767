// Streamable HTTP by hand, for benches that need many sessions or exact timings: a real SDK Client
// would add its own memory and scheduling to what is measured. One keep-alive agent, 127.0.0.1 only.
import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

export interface RawAnswer {
  readonly status: number;
  readonly sessionId: string | undefined;
  readonly body: string;
}

/** POSTs one JSON-RPC message (or a batch) and reads the whole answer (JSON or one SSE event). */
export async function post(url: URL, message: unknown, sessionId?: string): Promise<RawAnswer> {
  try {
    return await postOnce(url, message, sessionId);
  } catch (error) {
    // A kept-alive socket the server closed just as it was reused (Node's documented race): once more, on a new one.
    if ((error as { reusedSocket?: boolean }).reusedSocket !== true) throw error;
    return postOnce(url, message, sessionId);
  }
}

function postOnce(url: URL, message: unknown, sessionId?: string): Promise<RawAnswer> {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }),
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const header = incoming.headers['mcp-session-id'];
          resolve({ status: incoming.statusCode ?? 0, sessionId: typeof header === 'string' ? header : undefined, body: Buffer.concat(chunks).toString('utf8') });
        });
        incoming.on('error', reject);
      },
    );
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error(`no answer from ${url.href} within 10 s`)));
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      reject(outgoing.reusedSocket && error.code === 'ECONNRESET' ? Object.assign(error, { reusedSocket: true }) : error);
    });
    outgoing.end(body);
  });
}

/** Opens a session as a client would (initialize, then notifications/initialized) and returns its id. */
export async function openSession(url: URL, clientName = 'bench-client'): Promise<string> {
  const answer = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } },
  });
  if (answer.status !== 200 || answer.sessionId === undefined) throw new Error(`initialize answered ${answer.status}: ${answer.body}`);
  const initialized = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, answer.sessionId);
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}: ${initialized.body}`);
  return answer.sessionId;
}

export function closeAgent(): void {
  agent.destroy();
}
