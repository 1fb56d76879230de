import { z } from "zod";
import { ErrorBody } from "./error-code.js";

/**
 * The tools the model sees (docs/design.md "Tools"). The zod schemas are the single source of truth:
 * the tool-runner validates with them and the orchestrator generates the model's JSON Schemas from them.
 */
export const ReadFileArgs = z
  .object({
    file_path: z
      .string()
      .describe("Path of the file to read, e.g. {bundle-root}/config.yaml or {planning_artifacts}/prd.md"),
    offset: z.number().int().min(1).optional().describe("First line to read (1-based); omit to read from the start"),
    limit: z.number().int().min(1).optional().describe("How many lines to read; omit to read to the end"),
  })
  .strict();

const SaveOutputArgs = z
  .object({
    file_path: z
      .string()
      .describe("Where to save, e.g. {planning_artifacts}/prd.md, {project-root}/docs/notes.md or {session-folder}/scratch.md"),
    content: z.string().describe("The complete file content, or with mode \"append\" the text to add at its end"),
    mode: z
      .enum(["overwrite", "append"])
      .optional()
      .describe("overwrite (the default) replaces the file; append adds exactly `content` at its end (no separator), creating the file when missing"),
  })
  .strict();

const EditFileArgs = z
  .object({
    file_path: z.string().describe("The file to change, e.g. {planning_artifacts}/prd.md"),
    old_string: z.string().min(1).describe("The exact text to replace, copied from the file as it is now (whitespace and line breaks included); it must occur once unless replace_all"),
    new_string: z.string().describe("The text to put in its place (empty to delete it)"),
    replace_all: z.boolean().optional().describe("Replace every occurrence of old_string, not just a single one"),
  })
  .strict();

const ListFilesArgs = z
  .object({
    path: z.string().describe("Folder to list, e.g. {bundle-root}/workflows or {session-folder}"),
  })
  .strict();

const FindFilesArgs = z
  .object({
    pattern: z
      .string()
      .min(1)
      .max(1024)
      .describe("A glob: * and ? within a name, ** across folders, {a,b} alternatives, e.g. **/*prd*.md or {planning_artifacts}/**/architecture*.md"),
    path: z.string().optional().describe("The folder to search under, e.g. {planning_artifacts}; omit for the whole project (and {session-folder})"),
  })
  .strict();

const SearchFilesArgs = z
  .object({
    pattern: z
      .string()
      .min(1)
      .max(1024)
      .describe("A JavaScript regular expression matched line by line (start it with (?i) to ignore case), or plain text with literal"),
    path: z.string().optional().describe("The folder (or one file) to search, e.g. {planning_artifacts}; omit for the whole project (and {session-folder})"),
    glob: z.string().min(1).max(1024).optional().describe("Only files whose path matches this glob, e.g. *.md or **/stories/*.md"),
    literal: z.boolean().optional().describe("Treat pattern as plain text, not a regular expression"),
  })
  .strict();

const PreloadWorkflowArgs = z
  .object({
    workflow_path: z
      .string()
      .describe("Path of the workflow.yaml to run, as written in the agent's menu"),
  })
  .strict();

const LoadSkillArgs = z
  .object({
    name: z
      .string()
      .describe("The skill's name as BMAD writes it, e.g. bmad-prd (a menu item's skill, exec=\"skill:x\", or \"invoke the x skill\")"),
  })
  .strict();

const RunScriptArgs = z
  .object({
    command: z
      .string()
      .describe(
        "The command line exactly as the skill writes it, e.g. uv run {project-root}/_bmad/scripts/memlog.py init --workspace {session-folder}/run. Only `uv run <script>` and `python3 <script>` of a script in the BMAD install or a skill folder; no shell syntax.",
      ),
  })
  .strict();

/** The longest command line: far below Linux's 128 KiB for one argument, far above any command a person types. */
const maxCommandChars = 16 * 1024;

const RunCommandArgs = z
  .object({
    command: z
      .string()
      .min(1)
      .max(maxCommandChars)
      .refine((text) => !text.includes("\0"), { message: "may not hold a NUL character" })
      .describe("A shell command line, run by /bin/sh -c from the repository's root (/project), e.g. git status, npm test or node --test"),
    timeout_ms: z
      .number()
      .int()
      .min(1000)
      .max(24 * 60 * 60_000)
      .optional()
      .describe("How long the command may run, in milliseconds; the server's default when omitted, and never more than its maximum"),
  })
  .strict();

/**
 * What `run_command` answers (docs/commands.md): the command's exit status (null when it was stopped), its stdout and
 * stderr (each cut to the server's limit, head and tail kept: `truncated`), and how long it ran. `success` is exit
 * status 0; otherwise `error` says why (COMMAND_FAILED, COMMAND_TIMEOUT, COMMAND_LIMIT_EXCEEDED naming the limit).
 */
export const RunCommandResult = z.object({
  success: z.boolean(),
  exit_code: z.number().int().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean(),
  duration_ms: z.number().int().min(0),
  error: ErrorBody.optional(),
});
export type RunCommandResult = z.infer<typeof RunCommandResult>;

const RunSubagentArgs = z
  .object({
    prompt: z.string().describe("The complete task for the subagent: what to do, which files to read, what to return"),
    skill: z.string().optional().describe("A skill the subagent runs (loaded for it with load_skill), e.g. bmad-review"),
    agent: z.string().optional().describe("An agent id whose persona the subagent takes, e.g. bmm/architect"),
  })
  .strict();

export const toolCatalog = {
  read_file: {
    description:
      "Read a text file. Use it whenever an instruction says to load or read a file. Give offset and limit (in lines) to read part of a long file; the result says its total_lines.",
    args: ReadFileArgs,
  },
  save_output: {
    description:
      "Save a file of the project (where the workflow names it: {output_folder}, {planning_artifacts}, … inside {project-root}) or of {session-folder}. Creates missing folders. Overwrites the file, or with mode \"append\" adds content at its end. Every save is a new revision.",
    args: SaveOutputArgs,
  },
  edit_file: {
    description:
      "Change part of a file: replace old_string, an exact and unique piece of its current text, with new_string (e.g. flip `status: draft` in the front matter). Use it instead of saving the whole file again. Fails, changing nothing, when old_string is missing or occurs more than once (unless replace_all).",
    args: EditFileArgs,
  },
  list_files: {
    description: "List the files and folders in one folder (names, types, sizes).",
    args: ListFilesArgs,
  },
  find_files: {
    description:
      "Find files by glob pattern at any depth, e.g. **/*prd*.md: the project's files, the installed BMAD files and {session-folder}. Newest first, with sizes. Use it before assuming where a document is.",
    args: FindFilesArgs,
  },
  search_files: {
    description:
      "Search file contents for a regular expression (or plain text with literal), under a path and glob. Returns matching lines as path:line: text.",
    args: SearchFilesArgs,
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
  run_command: {
    description:
      "Run a shell command in the project's git repository (its working tree, /project, with .git): git status, git diff, git add, git commit, the project's tests and checks. It runs in a sandbox with git, node and python3, no network unless the project allows it, and limits on time, memory, processes, disk and output. Returns exit_code, stdout, stderr, truncated and duration_ms; what it changes in the working tree is kept. Commit on the current branch; never push.",
    args: RunCommandArgs,
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
const orchestratorToolNames = ["run_subagent"] as const satisfies readonly ToolName[];
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
  const { $schema: _schema, ...parameters } = z.toJSONSchema(args, { override: ({ jsonSchema }) => withoutSafeIntegerBound(jsonSchema) }) as Record<string, unknown>;
  return { type: "function" as const, function: { name, description, parameters } };
}

/**
 * zod writes `.int()` as `maximum: 9007199254740991` (Number.MAX_SAFE_INTEGER), a bound no model needs and every
 * turn would pay for in tokens; the tool-runner still validates with the schema itself.
 */
function withoutSafeIntegerBound(schema: Record<string, unknown>): void {
  if (schema["maximum"] === Number.MAX_SAFE_INTEGER) delete schema["maximum"];
  if (schema["minimum"] === Number.MIN_SAFE_INTEGER) delete schema["minimum"];
}

type ToolDefinition = ReturnType<typeof toolDefinition>;

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Generated once, as every turn offers some of them; frozen, as the turns share them. */
const toolDefinitions = new Map(ToolName.options.map((name) => [name, deepFreeze(toolDefinition(name))]));

/** The lists asked for so far, by their names in order: a few per deployment (the agents' kinds of tool sets). */
const toolLists = new Map<string, ToolDefinition[]>();

/**
 * OpenAI chat-completions `tools` entries, generated from the zod schemas. The same names give the same frozen
 * list, so what is worked out from a list once (its size in tokens: the orchestrator's prompt counter) serves every
 * turn that offers it.
 */
export function toolDefinitionsForModel(names: readonly ToolName[] = ToolName.options): ToolDefinition[] {
  const key = names.join(",");
  let list = toolLists.get(key);
  if (!list) toolLists.set(key, (list = Object.freeze(names.map((name) => toolDefinitions.get(name) as ToolDefinition)) as ToolDefinition[]));
  return list;
}
