import { splitFrontMatter } from "./front-matter.js";
import { field, scalarText } from "./yaml-values.js";

/** A SKILL.md (BMAD 6.0.x tool skills onwards, docs/bmad-releases.md "Skills"), as the registry and the tool-runner read it. */
export interface SkillDocument {
  /** front matter `name` ("" when it has none: the registry then refuses the skill) */
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
  /** why the front matter was ignored, if it was */
  note?: string;
}

const launcherTarget = /load\b[^\n]*?\{project-root\}\/((?:_bmad|bmad|\.bmad-[\w-]+)\/[^\s`'"<>]*?agents\/[^\s`'"<>]+\.md)/i;

/** Reads a SKILL.md; nothing in it is required (the tool-runner loads a skill by its folder's name). */
export function readSkillMd(text: string): SkillDocument {
  const { fields, body, note } = splitFrontMatter(text.replace(/^\uFEFF/, ""));
  const { heading, sections } = headings(body);
  const launches = launcherTarget.exec(body)?.[1];
  return {
    name: scalarText(field(fields, "name")),
    description: scalarText(field(fields, "description")),
    body,
    heading,
    sections,
    ...(launches ? { launches } : {}),
    ...(note ? { note } : {}),
  };
}

/**
 * A SKILL.md the registry can serve: one without a front-matter `name` is not usable (tools register skills by
 * that name), and neither is binary content; both are refused with the reason.
 */
export function parseSkillMd(text: string): { ok: true; value: SkillDocument } | { ok: false; reason: string } {
  if (text.includes("\u0000")) return { ok: false, reason: "binary content (NUL bytes)" };
  const document = readSkillMd(text);
  if (document.name === "") return { ok: false, reason: `SKILL.md has no front matter name${document.note ? ` (${document.note})` : ""}` };
  return { ok: true, value: document };
}

/** The first `# ` heading and the `## ` sections, outside code fences; a repeated section title keeps its first text. */
function headings(body: string): { heading: string; sections: Map<string, string> } {
  const sections = new Map<string, string>();
  let heading = "";
  let current: { title: string; lines: string[] } | undefined;
  let fenced = false;
  const close = () => {
    if (current && !sections.has(current.title)) sections.set(current.title, current.lines.join("\n").trim());
  };
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const level2 = fenced ? undefined : /^##\s+(.+?)\s*#*\s*$/.exec(line);
    const level1 = fenced ? undefined : /^#\s+(.+?)\s*#*\s*$/.exec(line);
    if (level2) {
      close();
      current = { title: (level2[1] as string).toLowerCase(), lines: [] };
    } else if (level1 && heading === "") {
      heading = (level1[1] as string).trim();
    } else {
      current?.lines.push(line);
    }
  }
  close();
  return { heading, sections };
}
