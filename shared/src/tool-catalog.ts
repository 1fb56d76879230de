import { z } from "zod";

/**
 * The tools the model sees (DESIGN §2 decision 1). The zod schemas are the single source of truth:
 * the tool-runner validates with them and the orchestrator generates the model's JSON Schemas from them.
 */
export const ReadFileArgs = z
  .object({
    file_path: z
      .string()
      .describe("Path of the file to read, e.g. {bundle-root}/config.yaml or {session-folder}/notes.md"),
  })
  .strict();

export const SaveOutputArgs = z
  .object({
    file_path: z
      .string()
      .describe("Where to save, inside {session-folder}, e.g. {session-folder}/product-brief.md"),
    content: z.string().describe("The complete file content"),
  })
  .strict();

export const ListFilesArgs = z
  .object({
    path: z.string().describe("Folder to list, e.g. {bundle-root}/workflows or {session-folder}"),
  })
  .strict();

export const PreloadWorkflowArgs = z
  .object({
    workflow_path: z
      .string()
      .describe("Path of the workflow.yaml to run, as written in the agent's menu"),
  })
  .strict();

export const toolCatalog = {
  read_file: {
    description:
      "Read a text file. Use it whenever an instruction says to load or read a file. Paths use the variables {bundle-root}, {core-root}, {project-root} and {session-folder}.",
    args: ReadFileArgs,
  },
  save_output: {
    description:
      "Save a file into the session folder ({session-folder}). Creates missing folders. Overwrites an existing file.",
    args: SaveOutputArgs,
  },
  list_files: {
    description: "List the files and folders in a folder (names, types, sizes).",
    args: ListFilesArgs,
  },
  preload_workflow: {
    description:
      "Start a workflow: loads its workflow.yaml with variables resolved, its instructions, template, checklist and the workflow engine in one call.",
    args: PreloadWorkflowArgs,
  },
} as const;

export type ToolName = keyof typeof toolCatalog;
export const ToolName = z.enum(Object.keys(toolCatalog) as [ToolName, ...ToolName[]]);

export type ToolArgs = {
  [K in ToolName]: z.infer<(typeof toolCatalog)[K]["args"]>;
};

/** OpenAI chat-completions `tools` entries, generated from the zod schemas. */
export function toolDefinitionsForModel(names: readonly ToolName[] = ToolName.options) {
  return names.map((name) => {
    const { description, args } = toolCatalog[name];
    const { $schema: _schema, ...parameters } = z.toJSONSchema(args) as Record<string, unknown>;
    return { type: "function" as const, function: { name, description, parameters } };
  });
}
