import { readFrontMatter } from "./front-matter.js";
import { parseAgentYamlSource } from "./agent-v6-source.js";
import type { ParseAgentResult } from "./parsed-agent.js";
import { parseV4Agent } from "./agent-v4.js";
import { parseXmlAgent } from "./agent-v6-xml.js";

const agentTag = /<agent(?=[\s/>])/i;
const xmlFence = /^```xml[^\n]*\n/gm;

/**
 * Parses one agent file in any BMAD dialect, never throwing: a file that is not an agent gives
 * `{ok:false, reason}` and never a half agent. The dialect is chosen by content, not trusted from the name:
 * `*.yaml`/`*.yml` is a v6 source; otherwise an `<agent>` element (preferably inside a ```xml fence) is v6;
 * otherwise a fenced YAML block with an `agent` mapping is v4 (4.x). Skill agents (6.3+) are not files of
 * one dialect; `buildSkillAgent` reads them. The minimum for an agent is a name or an id.
 * Markdown front matter is read as YAML only (for `description`); other front matter is ignored, never run.
 */
export function parseAgentFile(text: string, fileName: string): ParseAgentResult {
  try {
    return parseByDialect(text.replace(/^\uFEFF/, ""), fileName);
  } catch (error) {
    // the parsers are written not to throw; this keeps a bug in one file from stopping discovery
    return { ok: false, reason: `parser failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function parseByDialect(text: string, fileName: string): ParseAgentResult {
  if (text.includes("\u0000")) return { ok: false, reason: "binary content (NUL bytes)" };
  if (text.trim() === "") return { ok: false, reason: "empty file" };
  if (/\.ya?ml$/i.test(fileName)) return parseAgentYamlSource(text);

  const start = findAgentTag(text);
  const result =
    start >= 0
      ? parseXmlAgent(text, start)
      : (parseV4Agent(text) ?? { ok: false as const, reason: "no <agent> element and no YAML agent block" });
  if (!result.ok) return result;

  const frontMatter = readFrontMatter(text);
  const agent = result.agent;
  if (agent.description === "") agent.description = frontMatter.description;
  if (frontMatter.note) agent.notes.push({ code: "PARSE_NOTE", message: frontMatter.note });
  return result;
}

/** Where the `<agent` tag starts: the first one inside a ```xml fence, else the first one anywhere, else -1. */
function findAgentTag(text: string): number {
  for (const fence of text.matchAll(xmlFence)) {
    const from = (fence.index ?? 0) + fence[0].length;
    const end = text.indexOf("\n```", from);
    const found = agentTag.exec(text.slice(from, end < 0 ? text.length : end));
    if (found) return from + found.index;
  }
  return agentTag.exec(text)?.index ?? -1;
}

/** The agent-file parser in the shape the registry's parse cache wants. */
export function parseAgentForCache(text: string, relativePath: string) {
  const result = parseAgentFile(text, relativePath);
  return result.ok ? { ok: true as const, value: result.agent } : result;
}
