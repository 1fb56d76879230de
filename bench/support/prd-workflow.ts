/**
 * Measure 13's document workflow: a PRD written in ten steps, as BMAD's step-file workflows write one. Step 1
 * creates the document (front matter with `stepsCompleted` and `status: draft`, the title, the first section);
 * every later step adds its section and records itself in `stepsCompleted`; the last also sets `status: final`.
 * A model can make each step in one of two ways, and both end with the same bytes:
 * - `whole`: `save_output` of the whole document so far, front matter included, at every step;
 * - `edits`: `save_output` with `mode: "append"` of the new section, then `edit_file` of `stepsCompleted`
 *   (and at the end `edit_file` of `status: draft` → `status: final`).
 */
import type { ScriptedToolCall } from "@agent-orchestrator/testing/http-model";
import { prose } from "./generated-prose.js";

export type WritingMode = "whole" | "edits";

export const workflowSteps = 10;

// the sections of BMAD's PRD workflow, one per step
const sectionTitles = [
  "Executive Summary",
  "Success Criteria",
  "User Journeys",
  "Domain Requirements",
  "Innovation and Differentiators",
  "Project-Type Requirements",
  "Scope and Phasing",
  "Functional Requirements",
  "Non-Functional Requirements",
  "Open Questions and Risks",
] as const;

/** Where a run in `mode` writes its document (each mode its own file, so both can be read back and compared). */
export const documentPath = (mode: WritingMode): string => `_bmad-output/planning-artifacts/prd-${mode}.md`;

const stepsCompleted = (steps: number) => `stepsCompleted: [${Array.from({ length: steps }, (_, index) => index + 1).join(", ")}]`;

function frontMatter(steps: number, status: "draft" | "final"): string {
  return (
    `---\nworkflowType: 'prd'\nproject_name: 'Bench'\nuser_name: 'Ada'\ndate: '2026-11-25'\n` +
    `inputDocuments: ['_bmad-output/planning-artifacts/product-brief.md']\n${stepsCompleted(steps)}\nstatus: ${status}\n---\n\n` +
    `# Product Requirements Document: Bench\n`
  );
}

/** Section `step` (1-based): a heading, prose and requirement lines, 1.1–2 KB; it starts with a blank line. */
function section(step: number): string {
  const words = prose(step);
  const bytes = 1_100 + ((step * 373) % 900);
  let text = `\n## ${step}. ${sectionTitles[step - 1]}\n\n${words.sentence(22)} ${words.sentence(17)} ${words.sentence(25)}\n\n`;
  for (let item = 1; text.length < bytes - 200; item += 1) text += `- **FR-${1000 + step * 40 + item}:** ${words.sentence(14)}\n`;
  return `${text}\n${words.sentence(28)}\n`;
}

/** The document after `steps` steps. */
export function prdDocument(steps: number, status: "draft" | "final"): string {
  return frontMatter(steps, status) + Array.from({ length: steps }, (_, index) => section(index + 1)).join("");
}

/** What the workflow leaves: all ten sections, every step recorded, final. */
export const finalDocument = (): string => prdDocument(workflowSteps, "final");

/** The tool calls a model makes for `step` in `mode`, one model call each, in order. */
export function stepCalls(mode: WritingMode, step: number): ScriptedToolCall[] {
  const file_path = `{project-root}/${documentPath(mode)}`;
  const last = step === workflowSteps;
  if (mode === "whole" || step === 1) return [{ name: "save_output", arguments: { file_path, content: prdDocument(step, last ? "final" : "draft") } }];
  const calls: ScriptedToolCall[] = [
    { name: "save_output", arguments: { file_path, content: section(step), mode: "append" } },
    { name: "edit_file", arguments: { file_path, old_string: stepsCompleted(step - 1), new_string: stepsCompleted(step) } },
  ];
  if (last) calls.push({ name: "edit_file", arguments: { file_path, old_string: "status: draft", new_string: "status: final" } });
  return calls;
}

/** The model's words at the end of a step, the same in both modes. */
export const stepAnswer = (step: number): string =>
  step === workflowSteps
    ? `The PRD is complete and marked final: ${workflowSteps} sections.`
    : `Section ${step}, ${sectionTitles[step - 1]}, is saved. [C] Continue to ${sectionTitles[step]}`;
