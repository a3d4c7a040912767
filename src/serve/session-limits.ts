// Apart from http-host.ts, which imports the v1 SDK: `mcp-gate serve --help` prints these without it.

/** HTTP sessions open at most unless `--max-sessions` says otherwise. */
export const defaultMaxSessions = 1_000;
/** A session idle this long is closed unless `--session-idle-timeout` says otherwise. */
export const defaultSessionIdleTimeoutMs = 5 * 60_000;
