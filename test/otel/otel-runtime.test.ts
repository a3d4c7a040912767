import { describe, expect, it } from 'vitest';
import { otlpProtocol } from '../../src/cli/otel-runtime.js';

describe('otlpProtocol', () => {
  it('defaults to http/protobuf, as the OTel exporters do', () => {
    expect(otlpProtocol({}, 'TRACES', 'mcp-gate serve')).toBe('http/protobuf');
  });

  it('takes a signal’s own variable over the shared one', () => {
    const env = { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json' };
    expect(otlpProtocol(env, 'TRACES', 'mcp-gate serve')).toBe('http/protobuf');
    expect(otlpProtocol(env, 'METRICS', 'mcp-gate serve')).toBe('http/json');
  });

  it('refuses grpc, naming the variable that asked for it', () => {
    expect(() => otlpProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }, 'TRACES', 'mcp-gate serve')).toThrow(
      'mcp-gate serve: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="grpc" is not supported; --otel exports over OTLP/HTTP: use http/protobuf (the default) or http/json',
    );
  });
});
