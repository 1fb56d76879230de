import { h } from "../lib/dom.js";
import { formatHashRoute } from "../lib/hash-route.js";
import type { CommitView } from "./repository-api.js";

/**
 * Commits as a list, newest first: each one's subject, who wrote it and when, its short id, and for a commit the
 * model made (its `Agent:` and `Chat:` trailers) the agent and a link to the chat.
 */
export function commitList(commits: readonly CommitView[], label: string): HTMLOListElement {
  return h("ol", { class: "commit-list", "aria-label": label }, ...commits.map(commitItem));
}

function commitItem(commit: CommitView): HTMLLIElement {
  const when = new Date(commit.author.at);
  const made =
    commit.agent_id === undefined
      ? null
      : h(
          "span",
          { class: "commit-agent" },
          `by ${commit.agent_id}`,
          commit.chat_id === undefined ? null : h("span", {}, " in ", h("a", { href: formatHashRoute({ view: "session", sessionId: commit.chat_id }) }, "its chat")),
        );
  return h(
    "li",
    { class: "commit" },
    h("span", { class: "commit-subject" }, commit.subject || "(no message)"),
    h(
      "span",
      { class: "commit-meta" },
      h("code", { class: "commit-id", title: commit.id }, commit.id.slice(0, 10)),
      ` ${commit.author.name} · `,
      h("time", { datetime: commit.author.at }, when.toLocaleString()),
      made ? " · " : null,
      made,
    ),
  );
}
