/**
 * `@agent-orchestrator/tool-runner`: the tool-runner for tests, benches and scripts that run it, or one of its
 * parts, in their own process. The service's process starts from main.ts; this entry starts nothing when imported.
 */
export { startToolRunner, type StartToolRunnerOptions, type ToolRunner } from "./tool-runner-service.js";
export { toolRunnerEnvSchema } from "./config.js";
export { toolRunnerMetrics } from "./tool-runner-metrics.js";
// the programs run_script's sandbox needs: `npm test` checks for them first (scripts/test-prerequisites.ts)
export { sandboxPrograms } from "./os-sandbox/sandbox-programs.js";
// the parts benches and tests drive alone: the file store, a sandbox, the tools and the script runner
export { FileStore } from "./store/file-store.js";
export { Repositories, RepositoryBucket, WorkingTrees, repositorySettingsOf } from "./repository/index.js";
export { liveFiles } from "./store/space-index.js";
export { createSandbox, Sandbox } from "./sandbox/index.js";
export { assertDescriptorPath, openDirectory } from "./sandbox/descriptor-path.js";
export { accessDenied } from "./paths/sandbox-error.js";
export type { ToolDependencies } from "./tools/tool-handler.js";
export { readFileTool } from "./tools/read-file-tool.js";
export { runScriptTool } from "./tools/run-script-tool.js";
export { runCommandTool } from "./tools/run-command-tool.js";
export { startCommandRunner } from "./commands/start-command-runner.js";
export { scratchTextForModel } from "./scripts/scratch-text.js";
export { startScriptRunner, type ScriptSettings } from "./scripts/start-script-runner.js";
export { workspaceInputs } from "./scripts/workspace-inputs.js";
