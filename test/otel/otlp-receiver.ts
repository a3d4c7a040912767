import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// An OTLP/HTTP receiver on 127.0.0.1 for the `--otel` tests: a tiny server that keeps every POST
// and answers as a collector does.

export interface ReceivedExport {
  /** `/v1/traces` or `/v1/metrics`. */
  readonly path: string;
  readonly contentType: string | undefined;
  readonly body: Buffer;
}

export interface OtlpReceiver {
  /** The endpoint to put in OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly received: ReceivedExport[];
  close(): Promise<void>;
}

export function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedExport[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', contentType: request.headers['content-type'], body: Buffer.concat(chunks) });
      // An empty Export*ServiceResponse: `{}` in JSON, zero bytes in protobuf.
      const json = request.headers['content-type']?.includes('json') === true;
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        received,
        close: () => new Promise((closed) => server.close(() => closed())),
      }),
    ),
  );
}

/** An OTLP/JSON AnyValue, as far as the gate's attributes go. */
export type OtlpValue = { stringValue?: string; intValue?: string | number; arrayValue?: { values: OtlpValue[] } };
export type OtlpKeyValue = { key: string; value: OtlpValue };

/** OTLP/JSON attributes as a plain record of their string or integer values. */
export function attributesOf(list: readonly OtlpKeyValue[] | undefined): Record<string, string | number | undefined> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, value.stringValue ?? value.intValue]));
}
