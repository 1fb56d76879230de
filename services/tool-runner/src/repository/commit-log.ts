import { maxShownBodyChars, type CommitView } from "@agent-orchestrator/shared/wire";
import { runGit } from "../git/git-command.js";
import { parseCommit, trailerValues, type ParsedCommit } from "./commit-object.js";
import type { LocalRepository } from "./local-repository.js";

/** Which commits a page of history holds: reachable from `tip`, not from `hidden`, newest first, `skip` then `limit`. */
export interface LogPage {
  tip: string;
  hidden?: readonly string[];
  limit: number;
  skip?: number;
}

/**
 * A page of history as the API shows it (docs/api.md), read from the host's own repository: `git rev-list` lists the
 * ids, and each commit is parsed from its object, so no message can pass for another field.
 */
export async function commitLog(local: LocalRepository, page: LogPage): Promise<{ commits: CommitView[]; more: boolean }> {
  await local.sync();
  const args = ["rev-list", `--max-count=${page.limit + 1}`, ...(page.skip ? [`--skip=${page.skip}`] : []), page.tip, ...(page.hidden ?? []).map((id) => `^${id}`)];
  const ids = (await runGit({ ...local.place, args })).stdout.toString("latin1").split("\n").filter((line) => line !== "");
  const commits: CommitView[] = [];
  for (const id of ids.slice(0, page.limit)) commits.push(commitView(parseCommit(id, (await local.read(id)).content)));
  return { commits, more: ids.length > page.limit };
}

/** A parsed commit as the API shows it. */
function commitView(commit: ParsedCommit): CommitView {
  const newline = commit.message.indexOf("\n");
  const subject = (newline === -1 ? commit.message : commit.message.slice(0, newline)).trim();
  const body = newline === -1 ? "" : commit.message.slice(newline + 1).trim();
  const [agent] = trailerValues(commit, "Agent");
  const [chat] = trailerValues(commit, "Chat");
  return {
    id: commit.id,
    parents: commit.parents,
    author: commit.author,
    committer: commit.committer,
    subject,
    body: body.length > maxShownBodyChars ? `${body.slice(0, maxShownBodyChars)}…` : body,
    ...(agent === undefined ? {} : { agent_id: agent }),
    ...(chat === undefined ? {} : { chat_id: chat }),
  };
}
