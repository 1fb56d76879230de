import { parse } from "yaml";
import { isForbiddenKey } from "../wire/forbidden-keys.js";
import { asMapping } from "./yaml-values.js";

/**
 * Aliases a BMAD file may use: none of the releases' files needs any, and workflow files of every release stay
 * far below it. The limit stops "billion laughs" (docs/security.md case 83).
 */
export const yamlAliasLimit = 100;

/** Parsed YAML, or the first line of the parser's error. */
type YamlResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * The one YAML entry point for BMAD's files (agent `.yaml`/`.md` blocks, configs, manifests, workflows, SKILL.md
 * front matter) in every service: the `yaml` package with the YAML 1.2 core schema (no custom tags, no code, no
 * `<<` merges), `yamlAliasLimit`, forbidden keys dropped, a repeated key read as the last one (as BMAD's own
 * installer reads it), and errors returned, not thrown. Size is capped by the caller before the text is read.
 */
export function parseBmadYaml(text: string): YamlResult {
  try {
    const value: unknown = parse(text, (key, inner: unknown) => (isForbiddenKey(String(key)) ? undefined : inner), {
      schema: "core",
      merge: false,
      maxAliasCount: yamlAliasLimit,
      uniqueKeys: false,
      prettyErrors: false,
      // unknown tags (`!!js/function`) stay plain strings; their warnings would go to process.emitWarning
      logLevel: "error",
    });
    return { ok: true, value };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: message.split("\n")[0] ?? "invalid YAML" };
  }
}

/** A YAML file that must be a mapping (configs, installer manifests, workflows), or why it is not one. */
export function parseYamlMapping(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  const parsed = parseBmadYaml(text);
  if (!parsed.ok) return { ok: false, reason: `not valid YAML: ${parsed.error}` };
  const mapping = asMapping(parsed.value);
  return mapping ? { ok: true, value: mapping } : { ok: false, reason: "not a YAML mapping" };
}
