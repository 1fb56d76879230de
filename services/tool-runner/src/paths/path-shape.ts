import { sandboxError } from "./sandbox-error.js";

/** Longest path accepted, in characters; checked before any filesystem call. */
export const maxPathLength = 1024;
/** Longest segment accepted, in UTF-8 bytes (the usual NAME_MAX). */
export const maxSegmentBytes = 255;

// C0/C1 controls (NUL included), and the bidi marks and overrides that make a name read differently
// than it is (U+200E/F, U+061C, U+202A–202E, U+2066–2069).
const unsafeCharacters = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const windowsDrive = /^[A-Za-z]:/;
const windowsReservedName = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/**
 * Step 1 of the sandbox algorithm: rejects a path by its shape alone, with no filesystem access. Never
 * URL-decodes: `%2e%2e` stays a literal name. Throws INVALID_PATH or NAME_TOO_LONG.
 */
export function assertPathShape(input: unknown): asserts input is string {
  if (typeof input !== "string" || input.trim() === "") throw invalid("the path is empty");
  if (input.length > maxPathLength) throw invalid(`the path is longer than ${maxPathLength} characters`);
  if (unsafeCharacters.test(input)) throw invalid("the path contains a control or bidi character");
  if (input.includes("\\")) throw invalid("use / as the separator; \\ is not allowed");
  if (windowsDrive.test(input)) throw invalid("drive letters are not allowed");
  for (const segment of input.split("/")) assertSegmentShape(segment);
}

function assertSegmentShape(segment: string): void {
  const problem = segmentProblem(segment);
  if (problem) throw problem.code === "NAME_TOO_LONG" ? sandboxError("NAME_TOO_LONG", problem.reason) : invalid(problem.reason);
}

function segmentProblem(segment: string): { code: "INVALID_PATH" | "NAME_TOO_LONG"; reason: string } | undefined {
  if (Buffer.byteLength(segment, "utf8") > maxSegmentBytes) {
    return { code: "NAME_TOO_LONG", reason: `A name in the path is longer than ${maxSegmentBytes} bytes` };
  }
  if (segment === "" || segment === "." || segment === "..") return undefined;
  // portable names: these cannot be created or read back on every system the output may travel to
  if (windowsReservedName.test(segment)) return { code: "INVALID_PATH", reason: `"${segment}" is a reserved device name` };
  if (/[. ]$/.test(segment)) return { code: "INVALID_PATH", reason: "a name may not end with a dot or a space" };
  return undefined;
}

/**
 * Why one name (a single segment, as a directory lists it) breaks the rules above, or undefined when a path
 * ending in it passes them. A reason quotes the name only once no refused character can be in it.
 */
export function nameShapeProblem(name: string): string | undefined {
  if (name === "" || name === "." || name === ".." || name.includes("/")) return "it is not a single name";
  if (unsafeCharacters.test(name)) return "it contains a control or bidi character";
  if (name.includes("\\")) return "it contains a backslash";
  return segmentProblem(name)?.reason;
}

function invalid(reason: string) {
  return sandboxError("INVALID_PATH", `Invalid path: ${reason}`);
}
