import { AppError } from "@agent-orchestrator/shared/runtime";
import { applyExactEdit, type EditOutcome } from "./exact-edit.js";
import { authorOf, type ToolHandler } from "./tool-handler.js";

/**
 * `edit_file` → `{success, path, size, revision, replacements, lines}`: an exact string of a project's or a
 * chat's text file replaced, as one new revision with its author (docs/file-tools.md). The checks, limits and
 * quota are those of `save_output`; the change is made from the revision it read, so it never lands on text
 * it did not see, and a refusal (no match, several matches) writes nothing.
 */
export const editFileTool: ToolHandler<"edit_file"> = async (args, context, deps, call) => {
  let outcome: EditOutcome | undefined;
  const written = await deps.sandbox.modify(
    context,
    args.file_path,
    (current, virtualPath) => {
      if (current === undefined) throw new AppError("FILE_NOT_FOUND", `File not found: ${virtualPath}; create it with save_output`);
      outcome = applyExactEdit(current, args, virtualPath);
      return outcome.text;
    },
    authorOf(context, call),
  );
  const { replacements, lines } = outcome as EditOutcome;
  return { success: true, path: written.path, size: written.size, revision: written.revision, replacements, lines };
};
