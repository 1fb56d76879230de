import { createLogger, toErrorBody } from "@agent-orchestrator/shared/runtime";
import { ReadFileArgs, type ToolContext, type ToolName, type ToolResult } from "@agent-orchestrator/shared/wire";
import type { ToolCaller } from "@agent-orchestrator/orchestrator";
import { createSandbox, type FileStore, readFileTool, type ToolDependencies } from "@agent-orchestrator/tool-runner";

/** read_file as a plain function call: the tool-runner's own handler and sandbox, in this process, no NATS hop. */
export interface DirectReadFile {
  (args: unknown, context: ToolContext): Promise<ToolResult>;
}

/**
 * The baselines' tool: the same handler the tool-runner runs (`readFileTool` through the same sandbox over the
 * same file store), called directly. Only read_file: it is the one tool the session measures use.
 */
export async function createDirectReadFile(bmadRoot: string, files: FileStore): Promise<DirectReadFile> {
  const logger = createLogger("bench-direct-tools", "silent");
  const sandbox = await createSandbox({ projectRoot: bmadRoot, files, readMaxBytes: 1 << 20, writeMaxBytes: 1 << 20, listMaxEntries: 1000 });
  const deps: ToolDependencies = { sandbox, replyBudget: () => 1 << 20, logger };
  let calls = 0;
  return async (args, context) => {
    try {
      return await readFileTool(ReadFileArgs.parse(args), context, deps, { call_id: `bench-direct-${++calls}` });
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
