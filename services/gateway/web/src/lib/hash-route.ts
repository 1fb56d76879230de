/**
 * What the page shows, kept in the URL's fragment so a reload or a shared link lands in the same place,
 * with no server-side routes: the picker, a new chat with one agent, one session, a project's overview
 * (the method at a glance), or a project's files (with one file open).
 */
export type HashRoute =
  | { view: "picker" }
  | { view: "agent"; agentId: string }
  | { view: "session"; sessionId: string }
  | { view: "project"; projectId: string }
  | { view: "files"; projectId: string; path?: string };

export function parseHashRoute(hash: string): HashRoute {
  const path = hash.replace(/^#\/?/, "");
  const [view, ...rest] = path.split("/");
  if (view === "projects" && rest[1] === "files") {
    const projectId = safeDecode(rest[0] ?? "");
    const filePath = rest.slice(2).map(safeDecode);
    if (!projectId || filePath.includes("")) return rest.length > 2 || !projectId ? { view: "picker" } : { view: "files", projectId };
    return filePath.length > 0 ? { view: "files", projectId, path: filePath.join("/") } : { view: "files", projectId };
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
    return `#/projects/${encodeURIComponent(route.projectId)}/files${file}`;
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
