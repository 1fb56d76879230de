import { AppError, mapWithConcurrency } from "@agent-orchestrator/shared/runtime";
import {
  ActivationReply,
  GetAgentReply,
  SkillReply,
  menuItemSkill,
  skillNamePattern,
  subjects,
  type AgentDefinition,
  type AgentSummary,
  type BmadToolInput,
  type MenuItem,
} from "@agent-orchestrator/shared/wire";
import type { AgentList } from "../agents/agent-list.js";
import type { GatewayContext } from "../gateway-context.js";
import { callService } from "../nats-call.js";
import { menuTarget, workflowActivation, type MenuTarget } from "./workflow-activation.js";

/** Agent definitions read at once when `list` gathers every agent's workflows. */
const listConcurrency = 8;

/** What every operation of the `bmad` tool answers (docs/design.md "Activation documents"): structured `data` and LLM-ready `text`. */
export interface BmadResult {
  data: Record<string, unknown>;
  text: string;
}

/**
 * The MCP tool `bmad`: list, read or execute an agent, a workflow or a skill, from the registry's answers. A
 * skill (a `workflow` that names one, or a menu item that runs one) is the registry's skill document
 * (`registry.skills.get`) for `read` and `execute` alike: its resolved instructions, for the outside model to
 * follow in the project (docs/design.md "Activation documents").
 */
export async function runBmadTool(context: GatewayContext, agentList: AgentList, input: BmadToolInput): Promise<BmadResult> {
  if (input.operation === "list") return listAll(context, agentList, input.agent);
  if (input.workflow) {
    const skill = input.agent === undefined ? await installedSkill(context, input.workflow, input.user_context) : undefined;
    if (skill) return skill;
    const { agent, item, target } = await findWorkflow(context, agentList, input.workflow, input.agent);
    const skillName = menuItemSkill(item);
    if (skillName !== undefined) return getSkill(context, skillName, input.user_context);
    if (input.operation === "read") {
      return { data: { type: "workflow", agent: agent.id, item, kind: target.kind, target: target.target }, text: workflowLine(item, target) };
    }
    const activation = await activate(context, { ...input, agent: agent.id });
    const activatedItem = activation.data.menu.find((entry) => entry.trigger === item.trigger) ?? item;
    return workflowActivation(activation.data, activatedItem, menuTarget(activatedItem) ?? target, input.user_context);
  }
  if (!input.agent) throw new AppError("VALIDATION_ERROR", `${input.operation} needs \`agent\` or \`workflow\``);
  if (input.operation === "read") {
    const agent = await getAgent(context, input.agent);
    return { data: { type: "agent", agent }, text: agentText(agent) };
  }
  const { data, text } = await activate(context, { ...input, agent: input.agent });
  return { data, text };
}

async function listAll(context: GatewayContext, agentList: AgentList, only: string | undefined): Promise<BmadResult> {
  const found: Array<AgentDefinition | AgentSummary> = only
    ? [await getAgent(context, only)]
    : await mapWithConcurrency(await agentList.list(), listConcurrency, (summary) =>
        // an agent whose definition cannot be read is still listed, without workflows
        getAgent(context, summary.id).catch(() => summary),
      );
  const agents = found.map((agent) => ({ ...summaryOf(agent), workflows: "menu" in agent ? workflowsOf(agent) : [] }));
  const text = [
    `## BMAD agents (${agents.length})`,
    ...agents.map((agent) =>
      [
        `- **${agent.id}** ${agent.icon} ${agent.name}${agent.title ? `, ${agent.title}` : ""}: ${agent.description}`,
        ...agent.workflows.map((workflow) => `  - ${workflowLine(workflow, workflow)}`),
      ].join("\n"),
    ),
    "Activate one with `bmad` operation `execute` and `agent`, or `workflow` (a menu trigger, or any installed skill's name such as `bmad-prd`); run it here with `chat`.",
  ].join("\n\n");
  return { data: { type: "list", agents }, text };
}

const summaryOf = (agent: AgentSummary) => ({
  id: agent.id,
  name: agent.name,
  title: agent.title,
  icon: agent.icon,
  description: agent.description,
  module: agent.bundleName,
  source: agent.source,
});

function workflowsOf(agent: AgentDefinition) {
  return agent.menu.flatMap((item) => {
    const target = menuTarget(item);
    return target ? [{ trigger: item.trigger, description: item.description, ...target }] : [];
  });
}

const workflowLine = (item: Pick<MenuItem, "trigger" | "description">, target: MenuTarget): string =>
  `\`${item.trigger}\` ${item.description} (${target.kind}: ${target.target})`;

/**
 * The menu item a `workflow` names: its trigger (with or without `*`), its target, or the target's folder
 * or skill name. Looked for in `agentId`'s menu, or in every agent's; a name several agents offer must be
 * narrowed with `agent`.
 */
async function findWorkflow(context: GatewayContext, agentList: AgentList, name: string, agentId: string | undefined) {
  const agents = agentId
    ? [await getAgent(context, agentId)]
    : await mapWithConcurrency(await agentList.list(), listConcurrency, (summary) =>
        getAgent(context, summary.id).catch(() => undefined),
      );
  const wanted = name.replace(/^\*/, "").toLowerCase();
  const matches = agents.flatMap((agent) =>
    (agent?.menu ?? []).flatMap((item) => {
      const target = menuTarget(item);
      return agent && target && namesOf(item, target).includes(wanted) ? [{ agent, item, target }] : [];
    }),
  );
  const first = matches[0];
  if (!first) throw new AppError("NOT_FOUND", `No workflow named ${name}${agentId ? ` in the menu of ${agentId}` : ""}; see \`bmad\` operation \`list\``);
  if (matches.some((match) => match.agent.id !== first.agent.id)) {
    throw new AppError("VALIDATION_ERROR", `Several agents offer ${name} (${[...new Set(matches.map((match) => match.agent.id))].join(", ")}); give \`agent\``);
  }
  return first;
}

function namesOf(item: MenuItem, target: MenuTarget): string[] {
  const segments = target.target.split("/").filter((segment) => segment !== "");
  const file = segments.at(-1) ?? "";
  const folder = /^(workflow|SKILL)\.[a-z]+$/i.test(file) ? segments.at(-2) : file.replace(/\.[a-z]+$/i, "");
  return [item.trigger.replace(/^\*/, ""), target.target, folder ?? ""].map((value) => value.toLowerCase()).filter((value) => value !== "");
}

/** The skill called `name`, when one is installed; undefined for a name that is no skill (a menu trigger, a path). */
async function installedSkill(context: GatewayContext, name: string, userContext: string | undefined): Promise<BmadResult | undefined> {
  if (!skillNamePattern.test(name)) return undefined;
  try {
    return await getSkill(context, name, userContext);
  } catch (error) {
    if (AppError.is(error) && error.code === "SKILL_NOT_FOUND") return undefined;
    throw error;
  }
}

async function getSkill(context: GatewayContext, name: string, userContext: string | undefined): Promise<BmadResult> {
  const { data, text } = await callService(context, subjects.registrySkillsGet, { name, user_context: userContext }, SkillReply);
  return { data, text };
}

/** One agent's definition from the registry (`registry.agents.get`). */
export async function getAgent(context: GatewayContext, agentId: string): Promise<AgentDefinition> {
  return (await callService(context, subjects.registryAgentsGet, { agent_id: agentId }, GetAgentReply)).agent;
}

async function activate(context: GatewayContext, input: BmadToolInput & { agent: string }) {
  const request = { agent_id: input.agent, user_context: input.user_context, variables: input.variables };
  return callService(context, subjects.registryAgentsActivation, request, ActivationReply);
}

/** One agent's definition as text: who it is, what it does at start, and its menu. */
function agentText(agent: AgentDefinition): string {
  const { persona } = agent;
  return [
    `${agent.icon} **${agent.name}**${agent.title ? ` (${agent.title})` : ""}: \`${agent.id}\` from ${agent.bundleName}`,
    `**Role:** ${persona.role}\n\n**Identity:** ${persona.identity}\n\n**Communication style:** ${persona.communication_style}\n\n**Principles:** ${persona.principles}`,
    agent.criticalActions.length > 0 ? `**Critical actions at start:**\n${agent.criticalActions.map((action, index) => `${index + 1}. ${action}`).join("\n")}` : "",
    `**Menu:**\n${agent.menu.map((item, index) => `${index + 1}. \`${item.trigger}\` ${item.description}`).join("\n")}`,
  ]
    .filter((part) => part !== "")
    .join("\n\n");
}
