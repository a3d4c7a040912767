import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Servers in adapter tests bind 127.0.0.1; keep every wait bounded.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    reporters: ['default'],
  },
});
