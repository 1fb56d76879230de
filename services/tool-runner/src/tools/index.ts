import type { ToolName } from "@agent-orchestrator/shared";
import { listFilesTool } from "./list-files-tool.js";
import { preloadWorkflowTool } from "./preload-workflow-tool.js";
import { readFileTool } from "./read-file-tool.js";
import { saveOutputTool } from "./save-output-tool.js";
import type { ToolHandler } from "./tool-handler.js";

export type { ToolDependencies, ToolHandler, ToolSuccess } from "./tool-handler.js";
export { preloadNote } from "./preload-workflow-tool.js";
export { replyOverheadBytes } from "./reply-budget.js";

/** Every tool of the catalog (DESIGN §2 decision 1), by name. */
export const toolHandlers: { readonly [N in ToolName]: ToolHandler<N> } = {
  read_file: readFileTool,
  save_output: saveOutputTool,
  list_files: listFilesTool,
  preload_workflow: preloadWorkflowTool,
};
