// Loaded with --import: makes @modelcontextprotocol/sdk (the v1 SDK, an optional peer) unresolvable,
// as in a project that installed only the v2 server package.
import { register } from 'node:module';

register('./block-v1-sdk-hooks.mjs', import.meta.url);
