import { insideProject, insideSession, scratchFolderName } from "./sandbox-view.js";

/** Where the model reads a script's scratch output: `{session-folder}/.bmad-scratch/…`. */
const scratchPrefix = `{session-folder}/${scratchFolderName}/`;

/**
 * The text of a file a script wrote into its scratch place, with the sandbox's own paths named as the model
 * names them. `render_skill.py` writes rendered skills whose links are the paths it saw inside the sandbox
 * (`/sandbox/project/_bmad/render/…`); the files themselves must stay as written, because BMAD checks their
 * hashes on its next run, so the paths are translated in what read_file returns instead. Other files are
 * returned unchanged.
 */
export function scratchTextForModel(virtualPath: string, content: string): string {
  if (!virtualPath.startsWith(scratchPrefix)) return content;
  return content
    .replaceAll(`${insideProject}/_bmad/render`, `{session-folder}/${scratchFolderName}/_bmad/render`)
    .replaceAll(insideSession, "{session-folder}")
    .replaceAll(insideProject, "{project-root}");
}
