/** Files an instructions document asks for, as written (variables not yet resolved). */
export interface WorkflowReferences {
  /** the engine it names, e.g. `workflow.xml`, from `…/core/tasks/workflow.xml` */
  engine: string | undefined;
  /** `<elicit-required>` appears: the advanced elicitation task is needed */
  elicit: boolean;
  /** `<invoke-workflow path="…">` targets: a workflow.yaml or its folder */
  workflows: string[];
  /** `<invoke-task>` targets: file paths in its attributes or text */
  tasks: string[];
}

const enginePattern = /(?:\bcore\/|\{core-root\}\/)tasks\/(workflow\.(?:xml|md))\b/;
const elicitPattern = /<elicit-required\b/;
const pathAttribute = /\b(?:path|workflow|task|file)\s*=\s*"([^"]+)"/;
// a path that starts with a variable or bmad/ and ends in a file type BMAD uses
const pathInText = /(?:\{[A-Za-z0-9_-]+\}|\bbmad)(?:\/[^\s"'<>()[\],;`]+)+\.(?:xml|md|yaml|yml|csv|json)\b/g;

function tags(text: string, tag: string): Array<{ attributes: string; body: string }> {
  const pattern = new RegExp(`<${tag}\\b([^>]*?)(?:/>|>([\\s\\S]*?)</${tag}>)`, "g");
  return [...text.matchAll(pattern)].map((match) => ({ attributes: match[1] ?? "", body: match[2] ?? "" }));
}

/**
 * Reads what an instructions document will need (docs/design.md "Tools": preload_workflow, conditional files included), so
 * preload_workflow can load it up front: the engine, the elicitation task, invoked workflows and tasks.
 */
export function findWorkflowReferences(instructions: string, workflowYaml = ""): WorkflowReferences {
  const workflows = tags(instructions, "invoke-workflow")
    .map(({ attributes, body }) => pathAttribute.exec(attributes)?.[1] ?? body.trim())
    .filter((target) => target !== "" && !/\s/.test(target));
  const tasks = tags(instructions, "invoke-task").flatMap(({ attributes, body }) => {
    const attribute = pathAttribute.exec(attributes)?.[1];
    return attribute !== undefined ? [attribute] : [...body.matchAll(pathInText)].map((match) => match[0]);
  });
  return {
    engine: (enginePattern.exec(instructions) ?? enginePattern.exec(workflowYaml))?.[1],
    elicit: elicitPattern.test(instructions),
    workflows: [...new Set(workflows)],
    tasks: [...new Set(tasks)],
  };
}
