import type { MenuItem, Persona } from "../wire/agent.js";
import { parseBmadYaml } from "./yaml.js";
import { asMapping, field, flattenText, scalarText, textList } from "./yaml-values.js";
import { emptyPersona, readAgentNaming, type MenuHandler, type ParseAgentResult, type ParseNote } from "./parsed-agent.js";

const yamlFence = /^```ya?ml[^\n]*\r?\n([\s\S]*?)^```[ \t]*$/gm;

/**
 * Reads a BMAD 4.x agent (4.44: `.bmad-core/agents/*.md` and the expansion packs' `.bmad-<pack>/agents/*.md`): markdown holding one fenced YAML block with `activation-instructions`, `agent`,
 * `persona`, `commands` and `dependencies`. Returns undefined when the text has no YAML block at all, so
 * the caller can report "not an agent". The first block whose `agent` is a mapping wins.
 */
export function parseV4Agent(text: string): ParseAgentResult | undefined {
  const errors: string[] = [];
  let blocks = 0;
  for (const fence of text.matchAll(yamlFence)) {
    blocks++;
    const parsed = parseBmadYaml(fence[1] ?? "");
    if (!parsed.ok) {
      errors.push(parsed.error);
      continue;
    }
    const document = asMapping(parsed.value);
    const agent = asMapping(field(document, "agent"));
    if (document && agent) return readV4(document, agent);
  }
  if (blocks === 0) return undefined;
  return { ok: false, reason: errors.length > 0 ? `YAML block is not valid: ${errors[0]}` : "no YAML block holds an agent mapping" };
}

function readV4(document: Record<string, unknown>, agent: Record<string, unknown>): ParseAgentResult {
  const naming = readAgentNaming(agent);
  if (!naming) return { ok: false, reason: "the agent mapping has neither a name nor an id" };
  const notes: ParseNote[] = [];
  const rules = [...textList(field(document, "IDE-FILE-RESOLUTION")), ...textList(field(document, "REQUEST-RESOLUTION"))];
  return {
    ok: true,
    agent: {
      format: "v4",
      ...naming,
      description: scalarText(field(agent, "whenToUse")),
      persona: readPersona(asMapping(field(document, "persona"))),
      criticalActions: textList(field(document, "activation-instructions")),
      handlers: dependencyHandler(asMapping(field(document, "dependencies"))),
      rules,
      menu: readCommands(field(document, "commands"), notes),
      prompts: [],
      notes,
    },
  };
}

function readPersona(persona: Record<string, unknown> | undefined): Persona {
  if (!persona) return emptyPersona();
  const identity = scalarText(field(persona, "identity"));
  const focus = scalarText(field(persona, "focus"));
  return {
    role: scalarText(field(persona, "role")),
    identity: focus === "" ? identity : `${identity}\nFocus: ${focus}`.trim(),
    communication_style: scalarText(field(persona, "style")) || scalarText(field(persona, "communication_style")),
    principles: textList(field(persona, "core_principles") ?? field(persona, "principles")).join("\n"),
  };
}

/**
 * v4 commands come as a list of one-key mappings (`- help: Show…`), a mapping, or strings in the
 * expansion packs' form `'*help" - Show…'`. Triggers keep what the file says (with or without `*`, with
 * arguments such as `{topic}`); v4 commands have no target attributes.
 */
function readCommands(commands: unknown, notes: ParseNote[]): MenuItem[] {
  const entries: [string, unknown][] = [];
  const mapping = asMapping(commands);
  if (mapping) entries.push(...Object.entries(mapping));
  else if (Array.isArray(commands)) {
    for (const entry of commands) {
      const pair = asMapping(entry);
      if (pair) entries.push(...Object.entries(pair));
      else if (typeof entry === "string") entries.push(splitCommandString(entry));
      else notes.push({ code: "PARSE_NOTE", message: "a command that is neither text nor a mapping was ignored" });
    }
  }
  return entries
    .map(([trigger, description]) => ({ trigger: trigger.trim(), description: flattenText(description).replace(/\s+/g, " ").trim() }))
    .filter((item) => item.trigger !== "");
}

function splitCommandString(entry: string): [string, string] {
  const match = /^\s*(.+?)"?\s+-\s+(.*)$/s.exec(entry);
  return match ? [match[1] as string, match[2] as string] : [entry, ""];
}

/** v4 dependencies (`tasks: [create-doc.md]`, …) are what its commands load; shown to the model as a handler. */
function dependencyHandler(dependencies: Record<string, unknown> | undefined): MenuHandler[] {
  if (!dependencies) return [];
  const lines = Object.entries(dependencies)
    .map(([kind, files]) => `${kind}: ${textList(files).join(", ")}`)
    .filter((line) => !line.endsWith(": "));
  if (lines.length === 0) return [];
  return [{ type: "dependencies", instructions: `Load only when a command needs them; {root}/<type>/<name>:\n${lines.join("\n")}` }];
}
