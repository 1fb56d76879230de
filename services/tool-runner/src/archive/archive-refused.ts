import { AppError } from "@agent-orchestrator/shared/runtime";

// characters JSON.stringify leaves as they are but that make a name read as another: C1 controls, bidi marks
const misleadingCharacters = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
// a name is quoted whole up to this length; a longer one (the over-long path rule) is cut, not echoed
const maxQuotedLength = 200;

/** The ARCHIVE_REFUSED error: `reason` says which rule broke, in words a user can act on. */
export function archiveRefused(reason: string, cause?: unknown): AppError {
  return new AppError("ARCHIVE_REFUSED", `Archive refused: ${reason}`, cause === undefined ? {} : { cause });
}

/** As `archiveRefused`, naming the entry (its name as the archive gives it, before any strip). */
export function entryRefused(name: string, reason: string, cause?: unknown): AppError {
  return archiveRefused(`entry ${quotedName(name)} ${reason}`, cause);
}

/** An entry name quoted for a message: every control and bidi character escaped, a long name cut. */
function quotedName(name: string): string {
  const shown = name.length > maxQuotedLength ? `${name.slice(0, maxQuotedLength)}…` : name;
  return JSON.stringify(shown).replace(misleadingCharacters, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
