import { formatHashRoute } from "../lib/hash-route.js";

/** Where a file a chat wrote can be opened: the project's Files view, the chat's own files, or nowhere. */
export type WrittenFileTarget = { kind: "project"; href: string; path: string } | { kind: "session"; path: string } | { kind: "none" };

/**
 * A virtual path from a session's `files_written` (`{project-root}/docs/brief.md`, `{session-folder}/notes.md`)
 * as something the page can open. Other roots (the bundle's, an install's) are not shown by the page.
 */
export function writtenFileTarget(projectId: string, virtualPath: string): WrittenFileTarget {
  const project = /^\{project-root\}\/(.+)$/.exec(virtualPath)?.[1];
  if (project !== undefined && !project.split("/").some((part) => part === "" || part === "." || part === "..")) {
    return { kind: "project", href: formatHashRoute({ view: "files", projectId, path: project }), path: project };
  }
  const session = /^\{session-folder\}\/(.+)$/.exec(virtualPath)?.[1];
  if (session !== undefined && !session.split("/").some((part) => part === "" || part === "." || part === "..")) return { kind: "session", path: session };
  return { kind: "none" };
}
