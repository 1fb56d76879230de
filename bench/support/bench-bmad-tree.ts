import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/**
 * File sizes of a generated workflow: the medians of the real BMAD-METHOD v6.0.0-alpha.5 `bmm` workflows
 * (32 instructions.md, 33 workflow.yaml, 23 checklist.md, 6 template.md) and the size of its
 * `core/tasks/workflow.xml`, so that "every workflow file inlined" weighs what it would with real files.
 */
export const bmadMedianBytes = { workflowYaml: 1_906, instructions: 14_105, template: 1_449, checklist: 10_024, engine: 7_851 } as const;

/** Workflows of the planner agent (measure 7: "an agent with 15 workflows"). */
export const plannerWorkflowCount = 15;

/** The generated tree: a BMAD_ROOT with one bundle and a core, plus the ids and paths the measures use. */
export interface BenchBmadTree {
  root: string;
  /** critical actions load config.yaml; used for sessions (measures 1–5, 9, 10) */
  sessionAgent: string;
  /** 15 workflows in its menu (measures 7 and 8) */
  plannerAgent: string;
  /** a file of a few bytes: the "no-op-sized file" of measure 1 */
  noopFile: string;
  /** virtual path of workflow `index` (1-based) */
  workflowPath(index: number): string;
  /** the files of one workflow in the order a model without preload_workflow would read them */
  workflowFiles(index: number): string[];
  /** where a virtual `{bundle-root}/…` or `{core-root}/…` path is on disk */
  hostPath(virtualPath: string): string;
  remove(): Promise<void>;
}

const bundle = "bench-suite";
const workflowName = (index: number) => `wf-${String(index).padStart(2, "0")}`;

/** Writes the tree to a new temp folder. */
export async function createBenchBmadTree(): Promise<BenchBmadTree> {
  const root = await mkdtemp(join(tmpdir(), "bench-bmad-"));
  const bundleDir = join(root, "bmad/custom/bundles", bundle);
  const put = async (path: string, content: string) => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  };

  await put(join(root, "bmad/core/tasks/workflow.xml"), padTo(`<task id="bmad/core/tasks/workflow.xml" name="Execute Workflow">\n`, bmadMedianBytes.engine, "</task>\n"));
  await put(
    join(bundleDir, "bundle.yaml"),
    `type: bundle\nname: ${bundle}\nversion: 1.0.0\ndescription: Generated for the benchmarks\nagents:\n` +
      `  - { id: bench-agent, name: Bea, title: Bench Agent, file: agents/bench-agent.md, entry_point: true }\n` +
      `  - { id: bench-planner, name: Pat, title: Planner, file: agents/bench-planner.md, entry_point: true }\n` +
      `resources:\n  config: config.yaml\n`,
  );
  await put(join(bundleDir, "config.yaml"), `project_name: Bench\nuser_name: Ada\ncommunication_language: English\noutput_folder: "{session-folder}"\n`);
  await put(join(bundleDir, "noop.txt"), "ok\n");
  await put(join(bundleDir, "agents/bench-agent.md"), agentFile("bench-agent", "Bea", "Bench Agent", []));
  const menu = Array.from({ length: plannerWorkflowCount }, (_, offset) => offset + 1);
  await put(join(bundleDir, "agents/bench-planner.md"), agentFile("bench-planner", "Pat", "Planner", menu));
  for (const index of menu) {
    const folder = join(bundleDir, "workflows", workflowName(index));
    await put(join(folder, "workflow.yaml"), workflowYaml(index));
    await put(join(folder, "instructions.md"), instructions(index));
    await put(join(folder, "template.md"), padTo(`# {{project_name}}: ${workflowName(index)}\n\n`, bmadMedianBytes.template, ""));
    await put(join(folder, "checklist.md"), padTo(`# ${workflowName(index)} checklist\n\n`, bmadMedianBytes.checklist, ""));
  }

  const workflowPath = (index: number) => `{bundle-root}/workflows/${workflowName(index)}/workflow.yaml`;
  return {
    root,
    sessionAgent: "bench-agent",
    plannerAgent: "bench-planner",
    noopFile: "{bundle-root}/noop.txt",
    workflowPath,
    workflowFiles: (index) => {
      const folder = `{bundle-root}/workflows/${workflowName(index)}`;
      return [workflowPath(index), `${folder}/instructions.md`, `${folder}/template.md`, `${folder}/checklist.md`, "{core-root}/tasks/workflow.xml"];
    },
    hostPath: (virtualPath) => virtualPath.replace("{bundle-root}", bundleDir).replace("{core-root}", join(root, "bmad/core")),
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

function agentFile(id: string, name: string, title: string, workflows: number[]): string {
  const items = workflows
    .map((index) => `    <c cmd="*${workflowName(index)}" run-workflow="{bundle-root}/workflows/${workflowName(index)}/workflow.yaml">Run ${workflowName(index)}</c>\n`)
    .join("");
  return (
    `# ${title}\n\n\`\`\`xml\n<agent id="${id}" name="${name}" title="${title}" icon="🧪">\n` +
    `  <persona><role>Benchmark agent</role><identity>Generated.</identity><communication_style>Brief.</communication_style><principles>Measure.</principles></persona>\n` +
    `  <critical-actions>\n    <i>Load into memory {bundle-root}/config.yaml and set variables: project_name, output_folder, user_name, communication_language</i>\n` +
    `    <i>Remember the user's name is {user_name}</i>\n  </critical-actions>\n` +
    `  <cmds>\n    <c cmd="*help">Show the commands</c>\n${items}    <c cmd="*exit">Exit</c>\n  </cmds>\n</agent>\n\`\`\`\n`
  );
}

function workflowYaml(index: number): string {
  const head =
    `name: ${workflowName(index)}\ndescription: "Generated workflow ${index}"\nauthor: bench\n\n` +
    `config_source: "{bundle-root}/config.yaml"\noutput_folder: "{config_source}:output_folder"\nuser_name: "{config_source}:user_name"\n` +
    `communication_language: "{config_source}:communication_language"\ndate: system-generated\n\n` +
    `installed_path: "{bundle-root}/workflows/${workflowName(index)}"\ninstructions: "{installed_path}/instructions.md"\n` +
    `template: "{installed_path}/template.md"\nvalidation: "{installed_path}/checklist.md"\n` +
    `default_output_file: "{output_folder}/${workflowName(index)}-{{date}}.md"\nstandalone: true\n`;
  return padTo(head, bmadMedianBytes.workflowYaml, "", "# ");
}

function instructions(index: number): string {
  const head =
    `# ${workflowName(index)} instructions\n\n<critical>The workflow execution engine is governed by: {project-root}/bmad/core/tasks/workflow.xml</critical>\n` +
    `<critical>You MUST have already loaded and processed: {installed_path}/workflow.yaml</critical>\n\n<workflow>\n`;
  let body = "";
  for (let step = 1; head.length + body.length < bmadMedianBytes.instructions - 400; step++) {
    body +=
      `<step n="${step}" goal="Work through part ${step} of the document">\n  <action>Review what the user said so far and draft section ${step}.</action>\n` +
      `  <ask>Does section ${step} say what you mean, or should it change?</ask>\n  <template-output>section_${step}</template-output>\n</step>\n\n`;
  }
  return padTo(head + body, bmadMedianBytes.instructions, "</workflow>\n");
}

/** `head`, then filler lines, then `tail`, exactly `bytes` long (ASCII only, so characters are bytes). */
function padTo(head: string, bytes: number, tail: string, linePrefix = ""): string {
  const line = `${linePrefix}Filler that stands for the rest of a real BMAD file of this kind, line after line.\n`;
  let text = head;
  while (text.length + line.length + tail.length <= bytes) text += line;
  const rest = bytes - text.length - tail.length;
  if (rest > 0) text += rest > linePrefix.length ? `${linePrefix}${"x".repeat(rest - linePrefix.length - 1)}\n` : "\n".repeat(rest);
  return text + tail;
}
