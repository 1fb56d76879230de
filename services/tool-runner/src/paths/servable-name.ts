import { assertPathShape, nameShapeProblem } from "./path-shape.js";

// `{name}` anywhere but at the start of a path reads as an unresolved variable (virtual-path.ts)
const variableShape = /\{+[^{}]*\}+/;
const leadingVariable = /^\{[^{}/]*\}(?=\/|$)/;

/**
 * True when a name found on disk can be given back to the tools and opened: it passes the shape rules a
 * path must pass (path-shape.ts: no control or bidi character, no `\`, no reserved device name, no trailing
 * dot or space, at most 255 bytes) and holds no `{…}` that would read as a variable. A script can create any
 * name the filesystem allows; a name that fails here is never listed (docs/security.md cases 141, 142).
 */
export function isServableName(name: string): boolean {
  return nameShapeProblem(name) === undefined && !variableShape.test(name);
}

/**
 * True when a virtual path (`{session-folder}/a/b.md`) is one the tools accept: its shape, and no `{…}` past
 * its leading root variable. Used on paths a script's files or an older manifest name.
 */
export function isServablePath(virtualPath: string): boolean {
  try {
    assertPathShape(virtualPath);
  } catch {
    return false;
  }
  return !variableShape.test(virtualPath.replace(leadingVariable, ""));
}
