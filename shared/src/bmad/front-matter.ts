import { parseBmadYaml } from "./yaml.js";
import { asMapping, field, scalarText } from "./yaml-values.js";

/** A Markdown file split at its front matter: the YAML mapping (empty when none), the text after it, and why a block was ignored. */
interface SplitFrontMatter {
  fields: Record<string, unknown>;
  body: string;
  note?: string;
}

/** The front-matter fields BMAD's agent files and SKILL.md carry. */
interface FrontMatter {
  /** what the front matter says, or empty strings */
  name: string;
  description: string;
  /** a reason when the block was present but ignored */
  note?: string;
}

const opening = /^\uFEFF?---([^\r\n]*)\r?\n/;
const closing = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;

/**
 * A YAML-only front-matter splitter for every BMAD release's Markdown (agent `.md` files, SKILL.md). Only a block
 * opened by a bare `---` line is read, and only as YAML; `---js`, `---javascript` or any other language tag is
 * ignored and never evaluated (gray-matter evals them: CVE-2022-25863, docs/security.md case 84), and an invalid
 * block is dropped with a note. The body starts after the closing line and one blank line; an unclosed block
 * leaves the text whole.
 */
export function splitFrontMatter(text: string): SplitFrontMatter {
  const open = opening.exec(text);
  if (!open) return { fields: {}, body: text };
  const rest = text.slice(open[0].length);
  const close = closing.exec(rest);
  if (!close) return { fields: {}, body: text, note: "front matter not closed; ignored" };
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, "");
  const language = (open[1] ?? "").trim();
  if (language !== "") return { fields: {}, body, note: `front matter "---${language}" ignored (only YAML is read, nothing is evaluated)` };
  const parsed = parseBmadYaml(rest.slice(0, close.index));
  if (!parsed.ok) return { fields: {}, body, note: `front matter is not valid YAML (${parsed.error}); ignored` };
  return { fields: asMapping(parsed.value) ?? {}, body };
}

/** The `name` and `description` of a file's front matter. */
export function readFrontMatter(text: string): FrontMatter {
  const { fields, note } = splitFrontMatter(text);
  return { name: scalarText(field(fields, "name")), description: scalarText(field(fields, "description")), ...(note ? { note } : {}) };
}
