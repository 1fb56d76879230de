import type { RunnerToolName } from "@agent-orchestrator/shared/wire";
import { editFileTool } from "./edit-file-tool.js";
import { findFilesTool } from "./find-files-tool.js";
import { listFilesTool } from "./list-files-tool.js";
import { loadSkillTool } from "./load-skill-tool.js";
import { preloadWorkflowTool } from "./preload-workflow-tool.js";
import { readFileTool } from "./read-file-tool.js";
import { runCommandTool } from "./run-command-tool.js";
import { runScriptTool } from "./run-script-tool.js";
import { saveOutputTool } from "./save-output-tool.js";
import { searchFilesTool } from "./search-files-tool.js";
import type { ToolHandler } from "./tool-handler.js";

export type { ToolDependencies, ToolHandler, ToolSuccess } from "./tool-handler.js";
export { preloadNote } from "./preload-workflow-tool.js";

/** Every tool the tool-runner serves (docs/design.md "Tools"), by name. */
export const toolHandlers: { readonly [N in RunnerToolName]: ToolHandler<N> } = {
  read_file: readFileTool,
  save_output: saveOutputTool,
  edit_file: editFileTool,
  list_files: listFilesTool,
  find_files: findFilesTool,
  search_files: searchFilesTool,
  preload_workflow: preloadWorkflowTool,
  load_skill: loadSkillTool,
  run_script: runScriptTool,
  run_command: runCommandTool,
};
