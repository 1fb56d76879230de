/** Where the file a waiting call would change can be read: the chat's scratch space or the project's files. */
export type CallFile = { space: "session" | "project"; path: string };

/**
 * The project folders BMAD's output variables name in BMAD's own default config (docs/file-tools.md "Paths"). A
 * project whose install moves them is compared with the default place, and the card names the file it compared
 * with, so a wrong guess shows as a new file at that name rather than passing unseen.
 */
const outputFolders: Readonly<Record<string, string>> = {
  "{project-root}": "",
  "{output_folder}": "_bmad-output",
  "{planning_artifacts}": "_bmad-output/planning-artifacts",
  "{implementation_artifacts}": "_bmad-output/implementation-artifacts",
};

const sessionPrefix = "{session-folder}/";

/** A relative path with no empty, `.` or `..` segment: what the file routes take. */
const plainRelative = (path: string): boolean => path !== "" && path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");

/**
 * The file a save_output or edit_file call names by its virtual path (`{session-folder}/notes.md`,
 * `{planning_artifacts}/prd.md`, `docs/prd.md`), as the page can read it; undefined for a path it cannot place
 * (another variable, an absolute path, `..`).
 */
export function callFile(virtualPath: string): CallFile | undefined {
  if (virtualPath.startsWith(sessionPrefix)) {
    const path = virtualPath.slice(sessionPrefix.length);
    return plainRelative(path) ? { space: "session", path } : undefined;
  }
  const variable = /^\{[a-z_-]+\}/.exec(virtualPath)?.[0];
  if (variable === undefined) return plainRelative(virtualPath) ? { space: "project", path: virtualPath } : undefined;
  const folder = Object.hasOwn(outputFolders, variable) ? outputFolders[variable] : undefined;
  const rest = virtualPath.slice(variable.length + 1);
  if (folder === undefined || virtualPath[variable.length] !== "/" || !plainRelative(rest)) return undefined;
  return { space: "project", path: folder === "" ? rest : `${folder}/${rest}` };
}
