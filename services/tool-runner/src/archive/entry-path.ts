import { entryRefused } from "./archive-refused.js";

/** Longest entry name accepted, in characters (as the sandbox's paths, path-shape.ts). */
const maxEntryPathLength = 1024;
/** Longest name of one file or folder, in UTF-8 bytes (the usual NAME_MAX). */
const maxEntrySegmentBytes = 255;

// C0 controls (NUL included) and DEL, the C1 controls, and the bidi marks that make a name read as another:
// the tools never list such a name (path-shape.ts), so an archive may not bring one in
const unsafeCharacters = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
// `/x`, `\x`, `\\server\x`, `C:x`, `C:\x`
const absolutePath = /^([A-Za-z]:|\/|\\)/;

/**
 * The path an entry is read as: its name checked (no absolute path, no `..` or `.` or empty name, no
 * backslash, no control or bidi character, no U+FFFD, not over-long), leading `./` dropped, a folder's
 * trailing `/` dropped, then its first `strip` names removed. Undefined when nothing is left (`./`, or a
 * name with no more than `strip` names). Every rule holds on the whole name, stripped names included.
 * Throws ARCHIVE_REFUSED naming the entry.
 */
export function entryPath(name: string, strip: number): string | undefined {
  const refuse = (reason: string) => entryRefused(name, reason);
  if (name.length > maxEntryPathLength) throw refuse(`has a path longer than ${maxEntryPathLength} characters`);
  // what a name that is not valid UTF-8 decodes to: such a name cannot be told from a broken one
  if (name.includes("\uFFFD")) throw refuse("has a name that is not valid UTF-8");
  if (unsafeCharacters.test(name)) throw refuse("has a name with a control or bidi character");
  if (absolutePath.test(name)) throw refuse("is an absolute path; an archive holds relative paths only");
  if (name.includes("\\")) throw refuse("has a backslash in its name; archives separate folders with /");
  const segments = (name.endsWith("/") ? name.slice(0, -1) : name).split("/");
  const first = segments.findIndex((segment) => segment !== ".");
  const kept = first === -1 ? [] : segments.slice(first);
  for (const segment of kept) {
    if (segment === "") throw refuse("has an empty name in its path (// or a leading /)");
    if (segment === "..") throw refuse("has a .. in its path, which would climb out of the archive's folder");
    if (segment === ".") throw refuse("has a . in the middle of its path");
    if (Buffer.byteLength(segment, "utf8") > maxEntrySegmentBytes) throw refuse(`has a name longer than ${maxEntrySegmentBytes} bytes`);
  }
  return kept.length > strip ? kept.slice(strip).join("/") : undefined;
}
