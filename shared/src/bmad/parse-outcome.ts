import type { RegistryWarningCode } from "../wire/registry-messages.js";

/**
 * What a BMAD file parser gives back: a value, or a reason (and optionally the warning code to report it
 * with). Parsers return it instead of throwing, so one bad file never stops the registry's discovery.
 */
export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; reason: string; code?: RegistryWarningCode };
