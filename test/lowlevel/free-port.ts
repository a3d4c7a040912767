import { createServer } from 'node:net';

/** A port nothing listens on now on 127.0.0.1, for a framework that does not say which port it got for 0 (fastmcp, mcp-framework). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
