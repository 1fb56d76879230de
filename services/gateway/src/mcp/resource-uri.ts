/** The scheme and kind of a project file's resource URI: `bmad://project/<project id>/<path>`. */
export const projectResourcePrefix = "bmad://project/";
/** The RFC 6570 template of the same URIs (`{+path}` keeps the path's slashes). */
export const projectResourceTemplate = `${projectResourcePrefix}{project_id}/{+path}`;

/** A project file as a resource URI, each path segment percent-encoded so spaces, `#` and `?` stay part of the path. */
export function projectResourceUri(projectId: string, path: string): string {
  return `${projectResourcePrefix}${projectId}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** The project and path a resource URI names; undefined for any other URI (the caller answers it as not found). */
export function parseProjectResourceUri(uri: string): { projectId: string; path: string } | undefined {
  if (!uri.startsWith(projectResourcePrefix)) return undefined;
  const rest = uri.slice(projectResourcePrefix.length);
  const slash = rest.indexOf("/");
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  try {
    return { projectId: rest.slice(0, slash), path: rest.slice(slash + 1).split("/").map(decodeURIComponent).join("/") };
  } catch {
    return undefined;
  }
}
