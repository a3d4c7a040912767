// The whole state in the URL fragment: JSON, deflated with the platform's CompressionStream (no
// library), in base64url. A fragment never reaches a server, so a shared policy stays in the link.
import type { PlaygroundState } from './model.js';

const prefix = '#s=';

async function transform(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const output = new Blob([bytes as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(output).arrayBuffer());
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

export async function encodeState(state: PlaygroundState): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return prefix + toBase64Url(await transform(json, new CompressionStream('deflate-raw')));
}

/** The state of a share link's fragment; undefined when the fragment holds none (or a damaged one). */
export async function decodeState(fragment: string): Promise<PlaygroundState | undefined> {
  if (!fragment.startsWith(prefix)) return undefined;
  try {
    const json = await transform(fromBase64Url(fragment.slice(prefix.length)), new DecompressionStream('deflate-raw'));
    const state = JSON.parse(new TextDecoder().decode(json)) as PlaygroundState;
    return typeof state.policy === 'string' && Array.isArray(state.primitives) ? state : undefined;
  } catch {
    return undefined;
  }
}
