import type { MenuItem, Persona } from "../wire/agent.js";
import { isForbiddenKey } from "../wire/forbidden-keys.js";
import { blockText, childElements, findElement, firstChild, inlineText, listItems } from "./xml-element-text.js";
import { buildMenuItem, emptyPersona, type MenuHandler, type ParseAgentResult, type ParseNote } from "./parsed-agent.js";
import { scanElement, type TagElement } from "./xml-tag-scanner.js";

/**
 * Reads a v6 XML agent (`<agent id name title icon>`) from `source`: the agents the installers of the 6.0
 * alphas (early dialect, `bmad/<module>/agents/`) and 6.0.x-6.2 (compiled dialect, `_bmad/<module>/agents/`) write, starting at the `<agent` tag at `start`.
 * Both v6 dialects are read by the same code: compiled (`<activation>` with `<step>`s, `<menu-handlers>`,
 * `<rules>`, `<menu><item>`) and early (`<critical-actions><i>`, `<cmds><c run-workflow>`); a file mixing
 * them gets both. Missing sections are empty. The minimum is a `name` or an `id` attribute.
 */
export function parseXmlAgent(source: string, start: number): ParseAgentResult {
  const scanned = scanElement(source, start);
  if (!scanned) return { ok: false, reason: "no readable <agent> start tag" };
  const agent = scanned.root;
  const notes: ParseNote[] = scanned.notes.map((message) => ({ code: "PARSE_NOTE", message }));
  const attribute = (name: string) => inlineText(agent.attributes.get(name) ?? "");
  const id = attribute("id");
  const name = attribute("name");
  if (id === "" && name === "") return { ok: false, reason: "the <agent> element has neither a name nor an id" };

  const activation = firstChild(agent, "activation");
  const earlyActions = firstChild(agent, "critical-actions");
  const menuParents = childElements(agent, "menu", "cmds");
  const compiled = activation !== undefined || childElements(agent, "menu").length > 0;
  const early = earlyActions !== undefined || childElements(agent, "cmds").length > 0;

  const rulesElement = (activation && firstChild(activation, "rules")) ?? firstChild(agent, "rules");
  return {
    ok: true,
    agent: {
      format: compiled || !early ? "v6" : "v6-early",
      id,
      name,
      title: attribute("title"),
      icon: attribute("icon"),
      description: "",
      persona: readPersona(agent),
      criticalActions: [...(activation ? activationSteps(activation) : []), ...(earlyActions ? listItems(earlyActions, ["i"]) : [])],
      handlers: readHandlers(activation, agent),
      rules: rulesElement ? listItems(rulesElement, ["r", "rule"]) : [],
      menu: menuParents.flatMap((parent) => readMenu(parent, notes)),
      prompts: readPrompts(agent),
      notes,
    },
  };
}

function readPersona(agent: TagElement): Persona {
  const persona = firstChild(agent, "persona") ?? findElement(agent, "persona");
  if (!persona) return emptyPersona();
  const field = (...names: string[]) => {
    const element = firstChild(persona, ...names);
    return element ? blockText(element) : "";
  };
  return {
    role: field("role"),
    identity: field("identity"),
    communication_style: field("communication_style", "communication-style", "style"),
    principles: field("principles", "core_principles", "core-principles"),
  };
}

/** `<step n="…">` children; or the alpha web form `<steps><s>1:Read…</s></steps>`, whose `N:` prefix is dropped. */
function activationSteps(activation: TagElement): string[] {
  const steps = childElements(activation, "step").map(blockText);
  if (steps.length > 0) return steps.filter((step) => step !== "");
  const list = firstChild(activation, "steps");
  if (!list) return [];
  return childElements(list, "s", "step")
    .map((step) => blockText(step).replace(/^\d+\s*[:.)]\s*/, ""))
    .filter((step) => step !== "");
}

function readHandlers(activation: TagElement | undefined, agent: TagElement): MenuHandler[] {
  const container = (activation && firstChild(activation, "menu-handlers")) ?? firstChild(agent, "menu-handlers");
  if (!container) return [];
  const handlers: MenuHandler[] = [];
  const groups = [container, ...childElements(container, "handlers")];
  for (const handler of groups.flatMap((group) => childElements(group, "handler"))) {
    const type = inlineText(handler.attributes.get("type") ?? "").toLowerCase();
    if (type === "" || isForbiddenKey(type)) continue;
    const instructions = blockText(handler);
    const existing = handlers.find((entry) => entry.type === type);
    if (existing) existing.instructions = `${existing.instructions}\n${instructions}`;
    else handlers.push({ type, instructions });
  }
  return handlers;
}

/** Menu entries: any child with a `cmd` (or `trigger`) attribute, so `<item>` and `<c>` read alike. */
function readMenu(parent: TagElement, notes: ParseNote[]): MenuItem[] {
  const items: MenuItem[] = [];
  for (const entry of parent.children) {
    if (entry.kind !== "element") continue;
    const trigger = inlineText(entry.attributes.get("cmd") ?? entry.attributes.get("trigger") ?? "");
    if (trigger === "") {
      notes.push({ code: "PARSE_NOTE", message: `<${parent.name}> entry <${entry.name}> without a cmd attribute ignored` });
      continue;
    }
    items.push(buildMenuItem(trigger, inlineText(blockText(entry)), (name) => entry.attributes.get(name), notes));
  }
  return items;
}

function readPrompts(agent: TagElement): { id: string; content: string }[] {
  const prompts = firstChild(agent, "prompts");
  if (!prompts) return [];
  return childElements(prompts, "prompt")
    .map((prompt) => ({ id: inlineText(prompt.attributes.get("id") ?? ""), content: blockText(prompt) }))
    .filter((prompt) => prompt.id !== "");
}
