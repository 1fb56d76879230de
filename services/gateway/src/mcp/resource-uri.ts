/** The scheme and kind of a project file's resource URI: `bmad://project/<project id>/<path>`. */
export const projectResourcePrefix = "bmad://project/";
/** The RFC 6570 template of the same URIs (`{+path}` keeps the path's slashes). */
export const projectResourceTemplate = `${projectResourcePrefix}{project_id}/{+path}`;
/** The scheme and kind of an installed BMAD file's resource URI: `bmad://install/<path from BMAD_ROOT>`. */
export const installResourcePrefix = "bmad://install/";
/** The RFC 6570 template of the same URIs. */
export const installResourceTemplate = `${installResourcePrefix}{+path}`;

/** A project file as a resource URI, each path segment percent-encoded so spaces, `#` and `?` stay part of the path. */
export function projectResourceUri(projectId: string, path: string): string {
  return `${projectResourcePrefix}${projectId}/${encodePath(path)}`;
}

/** The project and path a resource URI names; undefined for any other URI (the caller answers it as not found). */
export function parseProjectResourceUri(uri: string): { projectId: string; path: string } | undefined {
  if (!uri.startsWith(projectResourcePrefix)) return undefined;
  const rest = uri.slice(projectResourcePrefix.length);
  const slash = rest.indexOf("/");
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  const path = decodePath(rest.slice(slash + 1));
  return path === undefined ? undefined : { projectId: rest.slice(0, slash), path };
}

/** An installed BMAD file as a resource URI, encoded as a project file's. */
export function installResourceUri(path: string): string {
  return `${installResourcePrefix}${encodePath(path)}`;
}

/** The installed file's path a resource URI names; undefined for any other URI. */
export function parseInstallResourceUri(uri: string): { path: string } | undefined {
  if (!uri.startsWith(installResourcePrefix)) return undefined;
  const path = decodePath(uri.slice(installResourcePrefix.length));
  return path === undefined || path === "" ? undefined : { path };
}

const encodePath = (path: string): string => path.split("/").map(encodeURIComponent).join("/");

function decodePath(encoded: string): string | undefined {
  try {
    return encoded.split("/").map(decodeURIComponent).join("/");
  } catch {
    return undefined;
  }
}
