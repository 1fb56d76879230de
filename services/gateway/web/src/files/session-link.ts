/**
 * The session file a link in rendered markdown points to, as a path relative to the session folder; or
 * undefined for links that leave the session (a scheme, an absolute path, a fragment). Models link the
 * files they wrote by their plain names (`[the brief](brief.md)`), which only mean something here.
 */
export function sessionLinkTarget(href: string, fromFile = ""): string | undefined {
  if (href === "" || /^[a-z][a-z0-9+.-]*:|^[/\\#?]/i.test(href)) return undefined;
  // resolve against the linking file's folder on a stand-in origin; `..` cannot climb above its root
  const resolved = new URL(href, `http://session.invalid/${fromFile}`);
  const path = decodeURIComponent(resolved.pathname).replace(/^\//, "");
  return path === "" ? undefined : path;
}
