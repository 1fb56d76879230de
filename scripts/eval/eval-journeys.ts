/**
 * The fixed journeys of an eval, planned per agent from what the install ships (the agent's menu as the
 * registry parsed it, and the skills' own SKILL.md files): each is a short conversation of fixed user
 * messages, and each step names the checks it is graded by (eval-checks.ts). Which journeys run for which
 * release kind is in docs/eval.md "Journeys".
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isSkillHostName } from "@agent-orchestrator/shared/bmad";
import type { AgentDetail, MenuItem } from "./eval-client.js";

/** The three ways BMAD releases run agents, as the registry reports them (`format`). */
export type ReleaseKind = "4.x" | "6.x agent file" | "skills";

export const releaseKindOf = (format: string): ReleaseKind => (format === "v4" ? "4.x" : format === "skill" ? "skills" : "6.x agent file");

export type CheckName =
  | "turn.done"
  | "tools.known"
  | "tools.in_view"
  | "activation.config"
  | "greeting.agent_name"
  | "greeting.user_name"
  | "greeting.language"
  | "greeting.menu"
  | "menu.items"
  | "workflow.loaded"
  | "dependency.loaded"
  | "step.question"
  | "step.no_early_write"
  | "output.saved"
  | "output.in_folder"
  | "script.ran"
  | "compaction.done"
  | "resume.no_restart"
  | "resume.same_document";

/** Checks every step is graded by. */
export const genericChecks: readonly CheckName[] = ["turn.done", "tools.known", "tools.in_view"];

/**
 * Checks passed only by calling a tool (loading a workflow, saving a document, running a script). A model that
 * never calls one passes most other checks, so the report leads with the steps graded by these (docs/eval.md).
 */
export const toolChecks: readonly CheckName[] = ["workflow.loaded", "dependency.loaded", "output.saved", "script.ran"];

export interface JourneyStep {
  name: string;
  message: string;
  /** what the step asks of the agent, in a sentence (the judge's rubric reads it) */
  intent: string;
  checks: CheckName[];
}

/** How a journey's workflow is expected to be loaded, from the menu item picked. */
export type WorkflowTarget =
  | { kind: "skill"; skill: string }
  | { kind: "preload"; path: string }
  | { kind: "read"; path: string }
  | { kind: "dependency"; files: string[] };

export interface Journey {
  agentId: string;
  name: "activation" | "workflow" | "script" | "compaction";
  /** open the chat with the system's greeting (POST /api/sessions) before the first step */
  startWithGreeting: boolean;
  steps: JourneyStep[];
  item?: MenuItem;
  target?: WorkflowTarget;
  /** the BMAD script the skill's instructions run (`memlog.py`), for the script journey */
  script?: string;
  /**
   * the step before which the chat must have been compacted (the compaction journey): when its small window has not
   * compacted it by then, the journey compacts it by hand (`POST /api/sessions/:id/compact`)
   */
  compactBefore?: string;
}

/** What a user says when a workflow's first step asks them something: a whole answer, and the wish to see it saved. */
export const evalAnswer =
  "My idea: a small app that lets neighbours lend each other garden tools. That is my answer for this step; " +
  "record it in the document now, in the output folder, as the workflow says, then ask me your next question.";

/** What a user says after the chat was compacted: go on, without saying where. */
export const evalResume = "Yes, that is right. Go on with the workflow from where we are.";

/** The code a user types to pick an item: `BP` (6.x, skills), `*idea-brief` (commands), `*create-project-brief` (4.x). */
export function itemCode(item: MenuItem, kind: ReleaseKind): string {
  const first = item.trigger.split(/\s+/)[0] ?? item.trigger;
  return kind === "4.x" && !first.startsWith("*") ? `*${first}` : first;
}

/** The skill a menu item runs: its `skill`, or the one its `prompt` text invokes (6.12 `Invoke the \`x\` skill`). */
export function itemSkill(item: MenuItem): string | undefined {
  return item.skill ?? /`(bmad-[\w-]+)`\s+skill/.exec(item.prompt ?? "")?.[1];
}

/** The journeys of one agent, in the order they run. */
export async function planJourneys(agent: AgentDetail, installRoot: string): Promise<Journey[]> {
  const kind = releaseKindOf(agent.format);
  const script = kind === "skills" ? await scriptJourney(agent, installRoot) : undefined;
  // the workflow journey takes another item than the script journey when the menu has one
  const workflow = workflowJourney(agent, kind, script?.target?.kind === "skill" ? script.target.skill : undefined);
  return [activationJourney(agent, kind), ...(workflow ? [workflow] : []), ...(script ? [script] : [])];
}

function activationJourney(agent: AgentDetail, kind: ReleaseKind): Journey {
  const helpItem = agent.menu.find((item) => /^(\*?help|MH)\b/i.test(item.trigger));
  const menuMessage = helpItem ? itemCode(helpItem, kind) : "Show me your menu, please.";
  // 4.x configs name no user and no language: their greeting is checked for the agent and the menu only
  const configured: CheckName[] = kind === "4.x" ? [] : ["activation.config", "greeting.user_name", "greeting.language"];
  return {
    agentId: agent.id,
    name: "activation",
    startWithGreeting: false,
    steps: [
      {
        name: "greeting",
        message: "Hello",
        intent: "Activate: greet the user by their configured name in the configured language, as the agent, and show the whole numbered menu.",
        checks: [...genericChecks, ...configured, "greeting.agent_name", "greeting.menu"],
      },
      { name: "menu", message: menuMessage, intent: "Show the agent's menu again, every item.", checks: [...genericChecks, "menu.items"] },
    ],
  };
}

/** The menu item a workflow journey picks, and how its workflow must be loaded; undefined when the menu has none. */
export function workflowTarget(agent: AgentDetail, kind: ReleaseKind, avoidSkill?: string): { item: MenuItem; target: WorkflowTarget } | undefined {
  if (kind === "4.x") {
    const uses = (item: MenuItem) => /use task create-doc with (\S+\.yaml)/.exec(item.description)?.[1];
    const item = agent.menu.find((candidate) => candidate.trigger === "create-project-brief" && uses(candidate)) ?? agent.menu.find((candidate) => uses(candidate));
    const template = item ? uses(item) : undefined;
    return item && template ? { item, target: { kind: "dependency", files: [".bmad-core/tasks/create-doc.md", `.bmad-core/templates/${template}`] } } : undefined;
  }
  const yaml = agent.menu.find((item) => item.workflow?.endsWith(".yaml"));
  if (yaml?.workflow) return { item: yaml, target: { kind: "preload", path: yaml.workflow } };
  const markdown = agent.menu.find((item) => item.workflow?.endsWith(".md") || (item.exec?.endsWith(".md") && !item.exec.startsWith("skill:")));
  const markdownPath = markdown?.workflow ?? markdown?.exec;
  if (markdown && markdownPath) return { item: markdown, target: { kind: "read", path: markdownPath } };
  const skills = agent.menu.filter((item) => itemSkill(item) !== undefined);
  const preferred = skills.filter((item) => itemSkill(item) !== avoidSkill);
  const skilled = preferred.find((item) => item.skill !== undefined) ?? preferred[0] ?? skills[0];
  const skill = skilled ? itemSkill(skilled) : undefined;
  return skilled && skill ? { item: skilled, target: { kind: "skill", skill } } : undefined;
}

function workflowJourney(agent: AgentDetail, kind: ReleaseKind, avoidSkill: string | undefined): Journey | undefined {
  const picked = workflowTarget(agent, kind, avoidSkill);
  if (!picked) return undefined;
  return { agentId: agent.id, name: "workflow", startWithGreeting: true, item: picked.item, target: picked.target, steps: workflowSteps(picked, kind) };
}

/**
 * The compaction journey (docs/eval.md "Journeys"): the workflow journey's first two steps, run where the model's
 * window is small, then the chat compacted mid-workflow, then "go on": graded on whether the workflow resumed where
 * it was (not restarted) and kept writing its document with what it already held. It runs on a system of its own
 * (run-eval.ts), so `--compaction-window` changes no other journey.
 */
export function compactionJourney(agent: AgentDetail): Journey | undefined {
  const kind = releaseKindOf(agent.format);
  const picked = workflowTarget(agent, kind);
  if (!picked) return undefined;
  return {
    agentId: agent.id,
    name: "compaction",
    startWithGreeting: true,
    item: picked.item,
    target: picked.target,
    compactBefore: "resume",
    steps: [
      ...workflowSteps(picked, kind),
      {
        name: "resume",
        message: evalResume,
        intent: "Go on with the same workflow after the conversation was compacted: at the step it had reached, without loading the workflow again or asking again what the user answered, writing into the same document.",
        checks: [...genericChecks, "compaction.done", "resume.no_restart", "resume.same_document"],
      },
    ],
  };
}

/** A workflow journey's steps: pick the item, then answer the first question. */
function workflowSteps(picked: { item: MenuItem; target: WorkflowTarget }, kind: ReleaseKind): JourneyStep[] {
  const loaded: CheckName = picked.target.kind === "dependency" ? "dependency.loaded" : "workflow.loaded";
  return [
    {
      name: "pick",
      message: itemCode(picked.item, kind),
      intent: `Run the menu item "${picked.item.description}": load its workflow and carry out its first step, which asks the user something, before writing anything.`,
      checks: [...genericChecks, loaded, "step.question", "step.no_early_write"],
    },
    {
      name: "answer",
      message: evalAnswer,
      intent: "Take the user's answer to the step's question, save the step's output into the project's output folder, and go on with the workflow.",
      checks: [...genericChecks, "output.saved", "output.in_folder"],
    },
  ];
}

/** Scripts BMAD's skills run whose work the system does not do itself (it resolves config and customization). */
const scriptCommand = /(?:uv run|python3)\s+(\S*\/scripts\/(?!resolve_)[\w-]+\.py)/;

/** A menu item whose skill runs one of BMAD's scripts (6.10+: `memlog.py` of bmad-prd), as a journey. */
async function scriptJourney(agent: AgentDetail, installRoot: string): Promise<Journey | undefined> {
  for (const item of agent.menu) {
    const skill = itemSkill(item);
    const text = skill ? await skillText(installRoot, skill) : undefined;
    const script = text ? scriptCommand.exec(text)?.[1] : undefined;
    if (!skill || !script) continue;
    return {
      agentId: agent.id,
      name: "script",
      startWithGreeting: true,
      item,
      target: { kind: "skill", skill },
      script: script.split("/").pop() ?? script,
      steps: [
        {
          name: "pick",
          message: `${itemCode(item, "skills")} — create a new one, please.`,
          intent: `Run the menu item "${item.description}" (the ${skill} skill), following its instructions.`,
          checks: [...genericChecks, "workflow.loaded"],
        },
        {
          name: "answer",
          message: evalAnswer,
          intent: `Go on with the ${skill} skill, running the BMAD script its instructions name (${script.split("/").pop() ?? script}) through run_script.`,
          checks: [...genericChecks, "script.ran"],
        },
      ],
    };
  }
  return undefined;
}

/** A skill's SKILL.md from the install's skill folders (`.claude/skills/<name>/SKILL.md`, …). */
async function skillText(installRoot: string, skill: string): Promise<string | undefined> {
  for (const host of await readdir(installRoot)) {
    const file = join(installRoot, host, "skills", skill, "SKILL.md");
    if (isSkillHostName(host) && existsSync(file)) return readFile(file, "utf8");
  }
  return undefined;
}
