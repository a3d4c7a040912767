import type { IncomingMessage } from 'node:http';

/** The SDK transport's default bound on a request body (its `DEFAULT_MAX_REQUEST_BODY_SIZE`, 4 MiB). */
const maxBodyBytes = 4 * 1024 * 1024;

/** Where @hono/node-server (under the SDK's Node transport) takes a body that was already read. */
type WithRawBody = IncomingMessage & { rawBody?: Buffer };

const jsonMediaType = /^application\/json\s*(;|$)/i;

/**
 * Reads a POST's JSON body with Node's own streams and parses it, for the SDK transport's
 * `parsedBody`: otherwise the transport reads it through a web `Request` built from the Node
 * request, a `ReadableStream` and a `TextDecoder` — about 13% of the proxy's busy time per tools/call
 * (bench/proxy-cpu.ts). Only what the SDK would parse is read here; everything else keeps the
 * SDK's own answer, byte for byte: a declared length over the bound, another media type, and a
 * body that does not parse (it gets the bytes read as `rawBody` and answers as if it had read
 * them: 413, or its -32700 parse error).
 */
export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  if (request.method !== 'POST' || !jsonMediaType.test(request.headers['content-type'] ?? '')) return undefined;
  if (Number(request.headers['content-length']) > maxBodyBytes) return undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      // The SDK stops reading here as well, and answers 413 on seeing more than the bound.
      if (received > maxBodyBytes) {
        request.off('data', onData).pause();
        resolve();
      }
    };
    request.on('data', onData).once('end', resolve).once('error', reject);
  });
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  (request as WithRawBody).rawBody = body;
  if (received > maxBodyBytes) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
