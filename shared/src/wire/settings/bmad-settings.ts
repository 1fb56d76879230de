import { z } from "zod";
import { skillNamePattern } from "../skill-name-pattern.js";
import { isForbiddenKey } from "../forbidden-keys.js";
import { hasBidiFormat } from "../bidi-format.js";
import { ApprovalsSettings } from "./approvals-settings.js";
import { RepositorySettings } from "./repository-settings.js";

/**
 * BMAD's settings per project and per member (docs/settings.md): the answers BMAD's installer asks (`bmad`) and
 * the customization layers of skills (`customize`), merged install → project → member. Every value is data the
 * model is shown as a value, never instructions, so the shapes are bounded and free of characters that could
 * change how a prompt reads (docs/security.md "Settings").
 */

/** The longest answer: a project's name is at most 200 characters, and so is any other answer. */
const maxAnswerChars = 200;
/** How many answers one layer may set. */
export const maxAnswers = 32;
/** The JSON bytes of a project's settings document, and of a member's. */
const maxProjectSettingsBytes = 32 * 1024;
const maxMemberSettingsBytes = 16 * 1024;
/** How deep a customization table may nest (BMAD's own go two levels: `[agent]`, `[[agent.menu]]`). */
const maxCustomizeDepth = 8;

// C0 and C1 controls and DEL: a line break in a name would start a new line of the prompt
const controlCharacter = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/**
 * Text from elsewhere (a project's name, a display name from sign-in) made an answer: control and bidi format
 * characters become spaces, runs of spaces one, cut to 200 characters; undefined when nothing is left.
 */
export function asAnswer(text: string): string | undefined {
  const plain = text
    .replace(new RegExp(controlCharacter.source, "gu"), " ")
    .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  return plain === "" ? undefined : Array.from(plain).slice(0, maxAnswerChars).join("").trim();
}

/** An answer as BMAD's config holds it: a key of the config (`project_name`, `user_skill_level`, …). */
const AnswerKey = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "an answer's key is a config key: lower-case letters, digits and _, at most 64");

/** One answer: one line of plain text, 1 to 200 characters, no control or bidi format character. */
export const AnswerValue = z
  .string()
  .trim()
  .min(1)
  .max(maxAnswerChars)
  .refine((text) => !controlCharacter.test(text), { message: "may not hold control characters or line breaks" })
  .refine((text) => !hasBidiFormat(text), { message: "may not hold bidi format characters" });

/** A layer's answers: config key → value. */
const BmadAnswers = z
  .record(AnswerKey, AnswerValue)
  .refine((answers) => Object.keys(answers).length <= maxAnswers, { message: `at most ${maxAnswers} answers` });

/** A value a TOML file can hold (no null), nested at most `maxCustomizeDepth` deep. */
function tomlValue(depth: number): z.ZodType<unknown> {
  const scalar = z.union([z.string().max(8192), z.number().finite(), z.boolean()]);
  if (depth >= maxCustomizeDepth) return scalar;
  return z.union([scalar, z.array(z.lazy(() => tomlValue(depth + 1))).max(256), tomlTable(depth + 1)]);
}

// checked on the key itself: a `__proto__` key the record copied would set the copy's prototype and vanish from its keys
const tomlKey = z
  .string()
  .min(1)
  .max(128)
  .refine((key) => !isForbiddenKey(key), { message: "may not use __proto__, constructor or prototype as a key" });

function tomlTable(depth: number) {
  return z.record(tomlKey, z.lazy(() => tomlValue(depth)));
}

/** A skill's customization layer: its customize.toml tables as JSON (`{"agent": {"menu": [{"code": …}]}}`). */
const SkillCustomization = tomlTable(1);

/** The customization layers of one settings document, by skill name. */
const SkillCustomizations = z
  .record(z.string().regex(skillNamePattern, "a skill's name as BMAD gives it, e.g. bmad-agent-analyst"), SkillCustomization)
  .refine((skills) => Object.keys(skills).length <= 64, { message: "at most 64 skills" });

/** A settings document stays within `max` bytes of JSON, said in the error. */
// TextEncoder, not Buffer: wire schemas are also compiled for the web page, which has no Node globals
const withinBytes = (max: number) => (document: unknown) => new TextEncoder().encode(JSON.stringify(document)).length <= max;

/**
 * A project's settings document (`GET/PUT /api/projects/:id/settings`): its BMAD answers (the team layer of the
 * config, `project_name` defaulting to the project's name), its team customization per skill, its tool approval
 * policies (docs/approvals.md) and what its repository's commands may do (`repository.network`, docs/commands.md).
 * Unknown top-level
 * keys are refused by name: the document grows by keys (tool approvals, a repository) as features arrive, and a
 * client that sends one this gateway does not know yet must hear so rather than see it dropped.
 */
export const ProjectSettings = z
  .strictObject({
    bmad: BmadAnswers.optional(),
    customize: SkillCustomizations.optional(),
    approvals: ApprovalsSettings.optional(),
    repository: RepositorySettings.optional(),
  })
  .refine(withinBytes(maxProjectSettingsBytes), { message: `a project's settings take at most ${maxProjectSettingsBytes / 1024} KiB of JSON` });
export type ProjectSettings = z.infer<typeof ProjectSettings>;

/** A member's own answers: the name BMAD greets them by and the language it speaks to them in. */
const MemberAnswers = z.strictObject({
  user_name: AnswerValue.optional(),
  communication_language: AnswerValue.optional(),
});

/** A member's settings document (`GET/PUT /api/me/settings`): their answers and their personal customization. */
export const MemberSettings = z
  .strictObject({
    bmad: MemberAnswers.optional(),
    customize: SkillCustomizations.optional(),
  })
  .refine(withinBytes(maxMemberSettingsBytes), { message: `a member's settings take at most ${maxMemberSettingsBytes / 1024} KiB of JSON` });
export type MemberSettings = z.infer<typeof MemberSettings>;

/** One layer as a turn carries it: answers (defaults filled in) and customization. */
const SettingsLayer = z.object({ bmad: BmadAnswers, customize: SkillCustomizations });

/**
 * What a turn carries to the tools that read BMAD's config (`load_skill`, `preload_workflow`, `run_script`): the
 * chat's project layer and its member's layer, merged over the install's answers in that order. `project.bmad`
 * holds `project_name` (the project's name unless the owner set another); `member.bmad` holds `user_name` (the
 * member's own, else their name from sign-in) unless the gateway signs nobody in.
 */
export const SettingsLayers = z.object({ project: SettingsLayer, member: SettingsLayer });
export type SettingsLayers = z.infer<typeof SettingsLayers>;
