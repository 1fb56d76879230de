import type { SkillActivationData } from "@agent-orchestrator/shared/wire";
import { section, userRequestSection } from "./activation-text.js";

/** File paths shown in the text at most; `data.files` has them all. */
const filesShown = 40;

const kindLabels = { agent: "Agent skill", workflow: "Workflow", skill: "Skill" } as const;

/**
 * Renders a skill's activation document as LLM-ready text (docs/design.md "Activation documents"): what the
 * skill is and where its files are, its resolved instructions, and the user's request, ending with the
 * instruction to begin. Written for a model that works in the project folder with its own file tools.
 */
export function renderSkillActivationText(data: SkillActivationData, instructions: string): string {
  const shown = data.files.slice(0, filesShown);
  const more = data.files.length - shown.length + (data.filesTruncated ? 1 : 0);
  const sections = [
    `🧩 **${kindLabels[data.kind]} Activated: ${data.name}** (module ${data.module}${data.release ? `, BMAD ${data.release}` : ""})`,
    section(
      "SKILL",
      [
        data.description && `**Purpose:** ${data.description}`,
        `**Folder:** \`${data.path}\` (the skill root); paths below are relative to the project folder (\`{project-root}\`), where you work and write as the instructions say.`,
        shown.length > 0 ? `**Its files:**\n${shown.map((file) => `- ${file}`).join("\n")}${more > 0 ? `\n- … and more in \`${data.path}\`` : ""}` : "",
      ]
        .filter((line) => line !== "")
        .join("\n\n"),
    ),
    section("INSTRUCTIONS", instructions.trim()),
    userRequestSection(data.userContext),
    "▶️ **BEGIN NOW**\nFollow the instructions above from their activation steps, loading the config and files they name from the project folder.",
  ];
  return sections.filter((part) => part !== "").join("\n\n---\n\n");
}
