/**
 * What the page shows, kept in the URL's fragment so a reload or a shared link lands in the same place,
 * with no server-side routes: the picker, a new chat with one agent, one session, a project's overview
 * (the method at a glance), or a project's files (with one file open; `?branch=` a branch of its git repository).
 */
export type HashRoute =
  | { view: "picker" }
  | { view: "agent"; agentId: string }
  | { view: "session"; sessionId: string }
  | { view: "project"; projectId: string }
  | { view: "files"; projectId: string; path?: string; branch?: string };

export function parseHashRoute(hash: string): HashRoute {
  const whole = hash.replace(/^#\/?/, "");
  const [view, ...rest] = whole.split("/");
  if (view === "projects" && rest[1]?.replace(/\?.*$/, "") === "files") {
    // a file's path is encoded segment by segment, so a `?` in the fragment starts the query
    const query = whole.indexOf("?");
    const segments = (query === -1 ? whole : whole.slice(0, query)).split("/").slice(1);
    const branch = query === -1 ? null : new URLSearchParams(whole.slice(query + 1)).get("branch");
    const on = branch ? { branch } : {};
    const projectId = safeDecode(segments[0] ?? "");
    const filePath = segments.slice(2).map(safeDecode);
    if (!projectId || filePath.includes("")) return segments.length > 2 || !projectId ? { view: "picker" } : { view: "files", projectId, ...on };
    return filePath.length > 0 ? { view: "files", projectId, path: filePath.join("/"), ...on } : { view: "files", projectId, ...on };
  }
  if (view === "projects" && rest.length === 1) {
    const projectId = safeDecode(rest[0] ?? "");
    return projectId ? { view: "project", projectId } : { view: "picker" };
  }
  // agent ids of installed modules hold a slash (`bmm/analyst`): everything after the view is the id
  const id = safeDecode(rest.join("/"));
  if (view === "agent" && id) return { view: "agent", agentId: id };
  if (view === "session" && id) return { view: "session", sessionId: id };
  return { view: "picker" };
}

export function formatHashRoute(route: HashRoute): string {
  if (route.view === "agent") return `#/agent/${route.agentId.split("/").map(encodeURIComponent).join("/")}`;
  if (route.view === "session") return `#/session/${encodeURIComponent(route.sessionId)}`;
  if (route.view === "project") return `#/projects/${encodeURIComponent(route.projectId)}`;
  if (route.view === "files") {
    const file = route.path ? `/${route.path.split("/").map(encodeURIComponent).join("/")}` : "";
    const branch = route.branch ? `?branch=${encodeURIComponent(route.branch)}` : "";
    return `#/projects/${encodeURIComponent(route.projectId)}/files${file}${branch}`;
  }
  return "#/";
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return "";
  }
}
