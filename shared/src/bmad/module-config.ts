import { parseYamlMapping } from "./yaml.js";
import type { ParseOutcome } from "./parse-outcome.js";

/** A module's config.yaml (`_bmad/<module>/config.yaml`, 6.0.x onwards; `bmad/<module>/` in the alphas) must be a YAML mapping; its values are read by the orchestrator, not here. */
export function parseModuleConfig(text: string): ParseOutcome<true> {
  const parsed = parseYamlMapping(text);
  return parsed.ok ? { ok: true, value: true } : { ok: false, reason: `config.yaml is ${parsed.reason}` };
}
