import type { AgentDefinition, Greeting, GreetingMenuItem, MenuItem } from "@agent-orchestrator/shared/wire";
import type { AgentStart } from "../agent/agent-start.js";
import { neutralUserName } from "../agent/start-variables.js";
import { AgentCustomization } from "../prompt/agent-customization.js";

/**
 * The greeting BMAD's activation asks for when an agent is chosen ("show greeting using {user_name} from config,
 * communicate in {communication_language}, then display numbered list of ALL menu items"), built by the system
 * from what the agent's start loaded, so choosing an agent costs no model call (docs/design.md "Activation by the
 * system"). The menu is shown as the agent's own release shows it: `[CODE] description` (6.x items and skills'
 * menus), else `*trigger — description` (4.x commands, 6.0 alpha items). The text is English: the system writes
 * it, and the model speaks `communication_language` from the next turn on, as its system prompt says.
 */
export function buildGreeting(agent: AgentDefinition, start: AgentStart): Greeting {
  const custom = start.kind === "skill" && start.skill.kind === "agent" ? AgentCustomization.parse(start.skill.customization) : undefined;
  const name = joined(custom?.name) || agent.name || agent.id;
  const title = joined(custom?.title) || agent.title;
  // 6.3+ skills ask the agent to lead its greeting with its icon, so the user sees at a glance who speaks
  const icon = start.kind === "skill" ? joined(custom?.icon) || agent.icon : "";
  const role = firstSentences(joined(custom?.role) || agent.persona.role, 2);
  const userName = configured(start.variables["user_name"]);
  const language = start.variables["communication_language"] ?? "English";
  const menu = greetingMenu(agent, start, custom);
  const activation = start.kind === "skill" ? start.skill.instructions : start.instructions.join("\n");

  const lines = [`${icon ? `${icon} ` : ""}Hello${userName ? ` ${userName}` : ""}! I'm ${name}${title ? `, your ${title}` : ""}.`];
  if (role) lines.push(`My role: ${role}`);
  if (menu.length > 0) lines.push("", "Here is what I can do:", ...menu.map((item) => item.line), "");
  // both 6.x activations ask the agent to point at bmad-help; an agent whose activation does not gets no such line
  if (/\bbmad-help\b/.test(activation)) lines.push("You can ask for bmad-help at any time for advice on what to do next.");
  if (!/^english\b/i.test(language.trim())) lines.push(`(The system wrote this greeting in English; from your next message on I will speak ${language}.)`);
  lines.push(menu.length > 0 ? "What would you like to do? Type a number or a code from the menu, or tell me what you need." : "What would you like to work on?");
  return {
    text: lines.join("\n"),
    menu: menu.map(({ number, trigger, description }) => ({ number, trigger, description })),
    ...(userName ? { user_name: userName } : {}),
    language,
  };
}

interface MenuEntry extends GreetingMenuItem {
  line: string;
}

/** A 6.x item's text starts with its code: `[BP] Brainstorm Project: …`. */
const codedDescription = /^\[([^\]\s]+)\]\s*/;

/** The customized menu of a 6.5+ skill agent, else the agent's own (6.3's capabilities table, an agent file's menu). */
function greetingMenu(agent: AgentDefinition, start: AgentStart, custom: AgentCustomization | undefined): MenuEntry[] {
  const items: MenuItem[] = custom?.menu?.map((item) => ({ trigger: item.code, description: item.description })) ?? agent.menu;
  return items.map((item, index) => {
    const number = index + 1;
    const description = item.description.trim();
    if (start.kind === "skill") return { number, trigger: item.trigger, description, line: `${number}. [${item.trigger}] ${description}` };
    const code = codedDescription.exec(description);
    if (code?.[1] !== undefined) return { number, trigger: code[1], description: description.slice(code[0].length), line: `${number}. ${description}` };
    const trigger = item.trigger.startsWith("*") ? item.trigger : `*${item.trigger}`;
    return { number, trigger, description, line: `${number}. ${trigger} — ${description}` };
  });
}

/** The user's name when the config gave one; the start's neutral default is no name. */
function configured(userName: string | undefined): string | undefined {
  const name = userName?.trim();
  return name && name !== neutralUserName ? name : undefined;
}

/** Up to `count` sentences of `text`, on one line, ending with a full stop. */
function firstSentences(text: string, count: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "";
  const sentences = flat.split(/(?<=[.!?])\s+/).slice(0, count).join(" ");
  return /[.!?]$/.test(sentences) ? sentences : `${sentences}.`;
}

const joined = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join(" ") : (value ?? "")).trim();
