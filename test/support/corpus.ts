/**
 * The real BMAD Method corpus beside the repository (`../shared/corpus/bmad-method`, a project root with
 * an installed `bmad/` tree). Tests read it in place and never copy it; CI has it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const corpusRoot = join(fileURLToPath(new URL("../../", import.meta.url)), "..", "shared", "corpus", "bmad-method");
export const corpusPresent = existsSync(join(corpusRoot, "bmad"));

/** The agents the corpus' installed modules hold, sorted: 8 bmm, 2 cis, and core's bmad-master. */
export const corpusAgentIds = [
  "bmm/analyst",
  "bmm/architect",
  "bmm/dev",
  "bmm/pm",
  "bmm/sm",
  "bmm/tea",
  "bmm/tech-writer",
  "bmm/ux-designer",
  "cis/brainstorming-coach",
  "cis/storyteller",
  "core/bmad-master",
] as const;
