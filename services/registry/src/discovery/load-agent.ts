import type { ParsedAgent } from "@agent-orchestrator/shared/bmad";
import type { RegistryWarning, RegistryWarningCode } from "@agent-orchestrator/shared/wire";
import type { DiscoveryContext } from "./discovery-context.js";
import type { FileParseCache, LoadOutcome } from "../cache/file-parse-cache.js";

/** Reads one agent file through the cache; problems become warnings, and only a usable agent is returned. */
export async function loadAgent(
  context: DiscoveryContext,
  relativePath: string,
  absolutePath: string,
  containerRealPath: string,
  warnings: RegistryWarning[],
): Promise<ParsedAgent | undefined> {
  const outcome = await context.agentFiles.load(relativePath, absolutePath, containerRealPath);
  if (!reportOutcome(outcome, relativePath, "AGENT_INVALID", warnings)) return undefined;
  for (const note of outcome.value.notes) warnings.push({ code: note.code, message: `${relativePath}: ${note.message}`, path: relativePath });
  return outcome.value;
}

/**
 * Turns a load outcome into warnings (a failure, or a stale last good version) and says whether there is a
 * value to use. `fallback` is the code for files that are missing, unreadable or invalid.
 */
export function reportOutcome<T>(
  outcome: LoadOutcome<T>,
  path: string,
  fallback: RegistryWarningCode,
  warnings: RegistryWarning[],
): outcome is Extract<LoadOutcome<T>, { ok: true }> {
  if (outcome.ok) {
    if (outcome.stale) {
      warnings.push({ code: "STALE_VERSION", message: `${path}: ${outcome.stale.reason}; its last good version is still served`, path });
    }
    return true;
  }
  const code: RegistryWarningCode =
    outcome.code === "PATH_REJECTED" || outcome.code === "FILE_TOO_LARGE" ? outcome.code : (outcome.parseCode ?? fallback);
  warnings.push({ code, message: outcome.code === "INVALID" ? `${path}: ${outcome.reason}` : `${path} ${outcome.reason}`, path });
  return false;
}

/**
 * Reads a file that may be absent (a manifest, a customization layer) through `cache`: absent gives
 * undefined without a warning; any other failure is reported with `fallback` and gives undefined.
 */
export async function loadOptional<T>(
  cache: FileParseCache<T>,
  relativePath: string,
  absolutePath: string,
  containerRealPath: string,
  fallback: RegistryWarningCode,
  warnings: RegistryWarning[],
): Promise<T | undefined> {
  const outcome = await cache.load(relativePath, absolutePath, containerRealPath);
  if (!outcome.ok && outcome.code === "FILE_MISSING") return undefined;
  return reportOutcome(outcome, relativePath, fallback, warnings) ? outcome.value : undefined;
}
