import type { ParseOutcome } from "./file-parse-cache.js";
import { readFrontMatter } from "./front-matter.js";

/** What the registry reads from a skill's SKILL.md. */
export interface SkillDocument {
  /** front matter `name` (required: it is the skill's registered name) */
  name: string;
  description: string;
  /** the text after the front matter: the instructions */
  body: string;
  /** the first `# ` heading, e.g. `Mary — Business Analyst` */
  heading: string;
  /** `## ` sections by lower-case title, their text trimmed */
  sections: ReadonlyMap<string, string>;
  /**
   * For an agent launcher (6.0.x tool skills, 6.2 `bmad-<agent>` skills): the agent file it tells the model
   * to load, relative to the project root (`_bmad/bmm/agents/analyst.md`). The XML agent is the agent.
   */
  launches?: string;
  /** a note about ignored front matter */
  note?: string;
}

const launcherTarget = /load\b[^\n]*?\{project-root\}\/((?:_bmad|bmad|\.bmad-[\w-]+)\/[^\s`'"<>]*?agents\/[^\s`'"<>]+\.md)/i;

/**
 * Parses a SKILL.md. A skill without a front-matter `name` is not usable (tools register skills by that
 * name), so it is refused with that reason; everything else is optional.
 */
export function parseSkillDocument(text: string): ParseOutcome<SkillDocument> {
  const source = text.replace(/^\uFEFF/, "");
  if (source.includes("\u0000")) return { ok: false, reason: "binary content (NUL bytes)" };
  const frontMatter = readFrontMatter(source);
  if (frontMatter.name === "") {
    return { ok: false, reason: `SKILL.md has no front matter name${frontMatter.note ? ` (${frontMatter.note})` : ""}` };
  }
  const body = stripFrontMatter(source);
  const sections = new Map<string, string>();
  let heading = "";
  let current: { title: string; lines: string[] } | undefined;
  let fenced = false;
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const level2 = fenced ? undefined : /^##\s+(.+?)\s*#*\s*$/.exec(line);
    const level1 = fenced ? undefined : /^#\s+(.+?)\s*#*\s*$/.exec(line);
    if (level2) {
      if (current && !sections.has(current.title)) sections.set(current.title, current.lines.join("\n").trim());
      current = { title: (level2[1] as string).toLowerCase(), lines: [] };
    } else if (level1 && heading === "") {
      heading = (level1[1] as string).trim();
    } else {
      current?.lines.push(line);
    }
  }
  if (current && !sections.has(current.title)) sections.set(current.title, current.lines.join("\n").trim());
  const launches = launcherTarget.exec(body)?.[1];
  return {
    ok: true,
    value: {
      name: frontMatter.name,
      description: frontMatter.description,
      body,
      heading,
      sections,
      ...(launches ? { launches } : {}),
      ...(frontMatter.note ? { note: frontMatter.note } : {}),
    },
  };
}

function stripFrontMatter(text: string): string {
  const match = /^---[^\n]*\n[\s\S]*?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  return match ? text.slice(match[0].length) : text;
}
