import { parse as parseYaml } from "yaml";

/** A SKILL.md split into its front matter fields and its body. */
export interface SkillDocument {
  name: string;
  description: string;
  /** the text after the front matter */
  body: string;
  /** why the front matter was ignored, if it was */
  note?: string;
}

const opening = /^\uFEFF?---([^\r\n]*)\r?\n/;
const closing = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;

/**
 * Splits a SKILL.md. Only a block opened by a bare `---` line is front matter, and it is only ever parsed as
 * YAML (a `---js` block is never evaluated, docs/security.md case 84); a block that is not valid YAML is dropped with a
 * note. `name` and `description` are taken when they are text.
 */
export function readSkillDocument(text: string): SkillDocument {
  const open = opening.exec(text);
  if (!open) return { name: "", description: "", body: text };
  const rest = text.slice(open[0].length);
  const close = closing.exec(rest);
  if (!close) return { name: "", description: "", body: text, note: "SKILL.md front matter is not closed; read as text" };
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, "");
  if ((open[1] ?? "").trim() !== "") return { name: "", description: "", body, note: "SKILL.md front matter is not YAML; ignored" };
  try {
    const parsed: unknown = parseYaml(rest.slice(0, close.index), { maxAliasCount: 20 });
    const fields = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    const text = (key: string) => (typeof fields[key] === "string" ? fields[key].trim() : "");
    return { name: text("name"), description: text("description"), body };
  } catch {
    return { name: "", description: "", body, note: "SKILL.md front matter is not valid YAML; ignored" };
  }
}
