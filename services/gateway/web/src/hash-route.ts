/**
 * What the page shows, kept in the URL's fragment so a reload or a shared link lands in the same place,
 * with no server-side routes: the picker, a new chat with one agent, or one session.
 */
export type HashRoute = { view: "picker" } | { view: "agent"; agentId: string } | { view: "session"; sessionId: string };

export function parseHashRoute(hash: string): HashRoute {
  const path = hash.replace(/^#\/?/, "");
  const [view, ...rest] = path.split("/");
  // agent ids of installed modules hold a slash (`bmm/analyst`): everything after the view is the id
  const id = safeDecode(rest.join("/"));
  if (view === "agent" && id) return { view: "agent", agentId: id };
  if (view === "session" && id) return { view: "session", sessionId: id };
  return { view: "picker" };
}

export function formatHashRoute(route: HashRoute): string {
  if (route.view === "agent") return `#/agent/${route.agentId.split("/").map(encodeURIComponent).join("/")}`;
  if (route.view === "session") return `#/session/${encodeURIComponent(route.sessionId)}`;
  return "#/";
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return "";
  }
}
