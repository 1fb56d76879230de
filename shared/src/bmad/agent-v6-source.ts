import type { MenuItem } from "../wire/agent.js";
import { parseBmadYaml } from "./yaml.js";
import { asMapping, field, flattenText, scalarText, textList } from "./yaml-values.js";
import { buildMenuItem, readAgentNaming, type ParseAgentResult, type ParseNote } from "./parsed-agent.js";

/**
 * Reads a v6 agent source (`*.agent.yaml` in the packages of the 6.0 alphas to 6.2: `agent.metadata`, `persona`, `critical_actions`, `menu`,
 * `prompts`), the form the BMAD compiler turns into the XML agent. Menu triggers are kept as written
 * (the compiler adds `*` and the help/exit items; the registry does not invent them).
 */
export function parseAgentYamlSource(text: string): ParseAgentResult {
  const parsed = parseBmadYaml(text);
  if (!parsed.ok) return { ok: false, reason: `not valid YAML: ${parsed.error}` };
  const agent = asMapping(field(asMapping(parsed.value), "agent"));
  const metadata = asMapping(field(agent, "metadata"));
  if (!agent || !metadata) return { ok: false, reason: "not an agent definition: no agent.metadata mapping" };
  const naming = readAgentNaming(metadata);
  if (!naming) return { ok: false, reason: "agent.metadata has neither a name nor an id" };
  const persona = asMapping(field(agent, "persona"));
  const notes: ParseNote[] = [];
  return {
    ok: true,
    agent: {
      format: "v6-source",
      ...naming,
      description: "",
      persona: {
        role: flattenText(field(persona, "role")),
        identity: flattenText(field(persona, "identity")),
        communication_style: flattenText(field(persona, "communication_style")),
        principles: textList(field(persona, "principles")).join("\n"),
      },
      criticalActions: textList(field(agent, "critical_actions")),
      handlers: [],
      rules: [],
      menu: readMenu(field(agent, "menu"), notes),
      prompts: readPrompts(field(agent, "prompts")),
      notes,
    },
  };
}

function readMenu(menu: unknown, notes: ParseNote[]): MenuItem[] {
  if (!Array.isArray(menu)) return [];
  const items: MenuItem[] = [];
  for (const entry of menu) {
    const mapping = asMapping(entry);
    const trigger = scalarText(field(mapping, "trigger"));
    if (!mapping || trigger === "") {
      notes.push({ code: "PARSE_NOTE", message: "a menu entry without a trigger was ignored" });
      continue;
    }
    const description = flattenText(field(mapping, "description")).replace(/\s+/g, " ");
    items.push(buildMenuItem(trigger, description, (key) => scalarText(field(mapping, key)) || undefined, notes));
  }
  return items;
}

function readPrompts(prompts: unknown): { id: string; content: string }[] {
  if (!Array.isArray(prompts)) return [];
  return prompts
    .map((entry) => asMapping(entry))
    .map((entry) => ({ id: scalarText(field(entry, "id")), content: flattenText(field(entry, "content")) }))
    .filter((prompt) => prompt.id !== "");
}
