import { z } from "zod";

/**
 * The tools the model sees (docs/design.md "Tools"). The zod schemas are the single source of truth:
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

export const LoadSkillArgs = z
  .object({
    name: z
      .string()
      .describe("The skill's name as BMAD writes it, e.g. bmad-prd (a menu item's skill, exec=\"skill:x\", or \"invoke the x skill\")"),
  })
  .strict();

export const RunScriptArgs = z
  .object({
    command: z
      .string()
      .describe(
        "The command line exactly as the skill writes it, e.g. uv run {project-root}/_bmad/scripts/memlog.py init --workspace {session-folder}/run. Only `uv run <script>` and `python3 <script>` of a script in the BMAD install or a skill folder; no shell syntax.",
      ),
  })
  .strict();

export const RunSubagentArgs = z
  .object({
    prompt: z.string().describe("The complete task for the subagent: what to do, which files to read, what to return"),
    skill: z.string().optional().describe("A skill the subagent runs (loaded for it with load_skill), e.g. bmad-review"),
    agent: z.string().optional().describe("An agent id whose persona the subagent takes, e.g. bmm/architect"),
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
  load_skill: {
    description:
      "Load a BMAD skill by name: its instructions (SKILL.md) with variables and customization resolved, and the paths of its other files (steps, references, assets) to read with read_file one at a time when the instructions say so. Use it whenever an instruction says to invoke or run a skill.",
    args: LoadSkillArgs,
  },
  run_script: {
    description:
      "Run one of BMAD's own Python scripts (the `uv run …/script.py …` or `python3 …/script.py …` lines in a skill) in a sandbox. Returns exit_code, stdout, stderr and the files it wrote in {session-folder}.",
    args: RunScriptArgs,
  },
  run_subagent: {
    description:
      "Hand a self-contained task to a subagent (a separate model conversation with the same file tools and session folder) and get its final answer back. Use it where a skill says to spawn or use a subagent. Subagents run in parallel when called together.",
    args: RunSubagentArgs,
  },
} as const;

export type ToolName = keyof typeof toolCatalog;
export const ToolName = z.enum(Object.keys(toolCatalog) as [ToolName, ...ToolName[]]);

/** Tools the orchestrator runs itself (a subagent is a turn, not a file operation); the rest go to the tool-runner. */
export const orchestratorToolNames = ["run_subagent"] as const satisfies readonly ToolName[];
export type RunnerToolName = Exclude<ToolName, (typeof orchestratorToolNames)[number]>;
/** The tools served on `tool.<name>` by the tool-runner. */
export const RunnerToolName = z.enum(
  ToolName.options.filter((name): name is RunnerToolName => !(orchestratorToolNames as readonly string[]).includes(name)) as [RunnerToolName, ...RunnerToolName[]],
);

export type ToolArgs = {
  [K in ToolName]: z.infer<(typeof toolCatalog)[K]["args"]>;
};

function toolDefinition(name: ToolName) {
  const { description, args } = toolCatalog[name];
  const { $schema: _schema, ...parameters } = z.toJSONSchema(args) as Record<string, unknown>;
  return { type: "function" as const, function: { name, description, parameters } };
}

export type ToolDefinition = ReturnType<typeof toolDefinition>;

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Generated once, as every turn offers some of them; frozen, as the turns share them. */
const toolDefinitions = new Map(ToolName.options.map((name) => [name, deepFreeze(toolDefinition(name))]));

/** OpenAI chat-completions `tools` entries, generated from the zod schemas. */
export function toolDefinitionsForModel(names: readonly ToolName[] = ToolName.options): ToolDefinition[] {
  return names.map((name) => toolDefinitions.get(name) as ToolDefinition);
}
