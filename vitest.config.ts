import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // tests run against the sources; the services' own processes run the built dist/
    alias: [
      { find: /^@agent-orchestrator\/shared\/(wire|bmad|runtime|testing)$/, replacement: fileURLToPath(new URL("./shared/src/$1/index.ts", import.meta.url)) },
      // a service's entry for tests (its `./testing` and @agent-orchestrator/testing name their sources already)
      { find: /^@agent-orchestrator\/(registry|tool-runner|orchestrator|gateway)$/, replacement: fileURLToPath(new URL("./services/$1/src/index.ts", import.meta.url)) },
    ],
  },
  test: {
    include: ["shared/src/**/*.test.ts", "services/*/src/**/*.test.ts", "services/*/web/src/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts", "eslint/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
