import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { indexToolCalls, stringArgument } from "./tool-call-index.js";

/** The workflow being run, as the chat reached it: a skill it loaded, or a workflow file it read or preloaded. */
export type WorkflowSource = { kind: "skill"; name: string } | { kind: "file"; path: string };

/** Where a chat is in BMAD's work, from its own tool calls (docs/models.md "Compaction"). */
export interface WorkflowPlace {
  workflow?: WorkflowSource;
  /** the step file read last (a `steps/` file of a step-file workflow) */
  step?: string;
  /** the files its `save_output` and `edit_file` calls changed, each once, the latest last */
  changed: string[];
}

/** A workflow's own file: a skill's SKILL.md, a 6.0 workflow.yaml or workflow.md, a 4.x task or template file is not one. */
const workflowFile = /(^|\/)(SKILL\.md|workflow\.(md|ya?ml))$/i;
/** A step file: `steps/step-02-…md`, `steps-c/…`, or any `step-NN…` markdown file. */
const stepFile = /(^|\/)(steps(-[a-z]+)?\/[^/]+\.md|step-[^/]*\.md)$/i;

/**
 * The workflow, the current step file and the changed files, from the conversation's tool calls in order: the
 * latest `load_skill`, `preload_workflow` or read of a workflow file names the workflow; the latest read of a step
 * file after it is the step. Calls that failed count too: the file is read again from disk, where it may now be.
 */
export function workflowPlace(conversation: readonly ChatCompletionMessageParam[]): WorkflowPlace {
  const place: WorkflowPlace = { changed: [] };
  for (const call of indexToolCalls(conversation).values()) {
    const path = stringArgument(call, "file_path");
    if (call.name === "load_skill") {
      const name = stringArgument(call, "name");
      if (name) setWorkflow(place, { kind: "skill", name });
    } else if (call.name === "preload_workflow") {
      const workflow = stringArgument(call, "workflow_path");
      if (workflow) setWorkflow(place, { kind: "file", path: workflow });
    } else if (call.name === "read_file" && path) {
      if (stepFile.test(path)) place.step = path;
      else if (workflowFile.test(path)) setWorkflow(place, { kind: "file", path });
    } else if ((call.name === "save_output" || call.name === "edit_file") && path) {
      place.changed = [...place.changed.filter((changed) => changed !== path), path];
    }
  }
  return place;
}

/** Another workflow begins: its steps are yet to be read (the same one loaded again keeps its step). */
function setWorkflow(place: WorkflowPlace, workflow: WorkflowSource): void {
  if (JSON.stringify(place.workflow) !== JSON.stringify(workflow)) delete place.step;
  place.workflow = workflow;
}
