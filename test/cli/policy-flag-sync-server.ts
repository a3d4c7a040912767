// A stand-in for flagd's sync service (flagd.sync.v1.FlagSyncService/SyncFlags) on 127.0.0.1,
// served by the real @grpc/grpc-js, so `--flagd-host` runs the real flagd provider's in-process
// gRPC sync without a flagd daemon (none is installed here). It speaks the protocol's wire form:
// SyncFlagsRequest {1: provider_id, 2: selector} in, SyncFlagsResponse {1: flag_configuration}
// out, each a protobuf string field encoded by hand.
import { Server, ServerCredentials, type ServerWritableStream, type ServiceDefinition } from '@grpc/grpc-js';

export interface SyncRequest {
  readonly selector: string;
  /** The `flagd-selector` metadata header, the newer way the provider sends the selector. */
  readonly selectorHeader: string | undefined;
}

export interface FlagdSyncServer {
  readonly port: number;
  readonly requests: readonly SyncRequest[];
  /** Sends a flag configuration (flagd's flag file JSON) to every open stream, and to streams opened later. */
  push(configuration: unknown): void;
  close(): Promise<void>;
}

function encodeStringField(field: number, text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const varint: number[] = [];
  for (let length = bytes.length; ; length >>>= 7) {
    if (length < 0x80) {
      varint.push(length);
      break;
    }
    varint.push((length & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...varint]), bytes]);
}

/** The string fields of a message (every field of SyncFlagsRequest is one). */
function decodeStringFields(buffer: Buffer): Map<number, string> {
  const fields = new Map<number, string>();
  let offset = 0;
  const readVarint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = buffer[offset++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (offset < buffer.length) {
    const tag = readVarint();
    if ((tag & 7) !== 2) throw new Error(`unexpected wire type ${tag & 7} in SyncFlagsRequest`);
    const length = readVarint();
    fields.set(tag >>> 3, buffer.subarray(offset, offset + length).toString('utf8'));
    offset += length;
  }
  return fields;
}

const flagSyncService: ServiceDefinition = {
  syncFlags: {
    path: '/flagd.sync.v1.FlagSyncService/SyncFlags',
    requestStream: false,
    responseStream: true,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (buffer: Buffer) => decodeStringFields(buffer),
    responseSerialize: (configuration: string) => encodeStringField(1, configuration),
    responseDeserialize: (buffer: Buffer) => buffer,
  },
};

export async function startFlagdSyncServer(initial: unknown): Promise<FlagdSyncServer> {
  let configuration = JSON.stringify(initial);
  const requests: SyncRequest[] = [];
  const streams = new Set<ServerWritableStream<Map<number, string>, string>>();
  const server = new Server();
  server.addService(flagSyncService, {
    syncFlags(call: ServerWritableStream<Map<number, string>, string>) {
      const header = call.metadata.get('flagd-selector')[0];
      requests.push({ selector: call.request.get(2) ?? '', selectorHeader: header === undefined ? undefined : String(header) });
      streams.add(call);
      call.on('cancelled', () => streams.delete(call));
      call.write(configuration);
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    port,
    requests,
    push(next) {
      configuration = JSON.stringify(next);
      for (const stream of streams) stream.write(configuration);
    },
    async close() {
      for (const stream of streams) stream.end();
      server.forceShutdown();
    },
  };
}
