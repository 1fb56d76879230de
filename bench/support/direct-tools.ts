import { createLogger, ReadFileArgs, toErrorBody, type ToolContext, type ToolName, type ToolResult } from "@agent-orchestrator/shared";
import type { ToolCaller } from "../../services/orchestrator/src/tool-caller.js";
import { toolRunnerEnvSchema } from "../../services/tool-runner/src/config.js";
import { ManifestStore } from "../../services/tool-runner/src/manifest/manifest-store.js";
import { createSandbox } from "../../services/tool-runner/src/sandbox/index.js";
import { readFileTool } from "../../services/tool-runner/src/tools/read-file-tool.js";
import type { ToolDependencies } from "../../services/tool-runner/src/tools/tool-handler.js";

/** read_file as a plain function call: the tool-runner's own handler and sandbox, in this process, no NATS. */
export interface DirectReadFile {
  (args: unknown, context: ToolContext): Promise<ToolResult>;
}

/**
 * The baselines' tool: the same handler the tool-runner runs (`readFileTool` through the same sandbox), called
 * directly. Only read_file: it is the one tool the session measures use.
 */
export async function createDirectReadFile(bmadRoot: string, outputRoot: string): Promise<DirectReadFile> {
  const logger = createLogger("bench-direct-tools", "silent");
  const sandbox = await createSandbox({ projectRoot: bmadRoot, outputRoot, readMaxBytes: 1 << 20, writeMaxBytes: 1 << 20, listMaxEntries: 1000 });
  const defaults = toolRunnerEnvSchema.parse({});
  const quota = { maxBytes: defaults.SESSION_MAX_BYTES, maxFiles: defaults.SESSION_MAX_FILES };
  const deps: ToolDependencies = { sandbox, manifests: new ManifestStore({ sandbox, logger, quota }), replyBudget: () => 1 << 20, logger };
  return async (args, context) => {
    try {
      return await readFileTool(ReadFileArgs.parse(args), context, deps);
    } catch (error) {
      return { success: false, error: toErrorBody(error) };
    }
  };
}

/**
 * The loop's tool seam without NATS: calls the tool function directly, so the in-process loop and the
 * distributed one run the very same loop code.
 */
export class DirectToolClient implements ToolCaller {
  constructor(private readonly readFile: DirectReadFile) {}

  async call(name: ToolName, _callId: string, context: ToolContext, args: unknown): Promise<ToolResult> {
    if (name !== "read_file") return { success: false, error: { code: "UNKNOWN_TOOL", message: `${name} is not wired in the in-process baseline` } };
    return this.readFile(args, context);
  }
}
