import { asMapping, field, parseYaml, scalarText } from "./safe-yaml.js";

/** The front-matter fields the registry uses. */
export interface FrontMatter {
  /** what the front matter says, or empty strings */
  name: string;
  description: string;
  /** a reason when the block was present but ignored */
  note?: string;
}

const opening = /^\uFEFF?---([^\r\n]*)\r?\n/;
const closing = /^(?:---|\.\.\.)[ \t]*$/m;

/**
 * A YAML-only front-matter splitter. Only a block opened by a bare `---` line is read, and only as YAML;
 * `---js`, `---javascript` or any other language tag is ignored and never evaluated (gray-matter evals
 * them: CVE-2022-25863, docs/security.md case 84).
 */
export function readFrontMatter(text: string): FrontMatter {
  const open = opening.exec(text);
  if (!open) return { name: "", description: "" };
  const language = (open[1] ?? "").trim();
  if (language !== "") return { name: "", description: "", note: `front matter "---${language}" ignored (only YAML is read, nothing is evaluated)` };
  const rest = text.slice(open[0].length);
  const close = closing.exec(rest);
  if (!close) return { name: "", description: "", note: "front matter not closed; ignored" };
  const parsed = parseYaml(rest.slice(0, close.index));
  if (!parsed.ok) return { name: "", description: "", note: `front matter is not valid YAML (${parsed.error}); ignored` };
  const mapping = asMapping(parsed.value);
  return { name: scalarText(field(mapping, "name")), description: scalarText(field(mapping, "description")) };
}
