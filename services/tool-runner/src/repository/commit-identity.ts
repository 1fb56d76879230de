import { createHash } from "node:crypto";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { parseCommit, trailerValues, type ParsedCommit } from "./commit-object.js";

/**
 * Who the model's commits in a chat's working tree name (docs/repositories.md "Commits by the model"): the member
 * whose turn it is, as author and committer, and the trailers `Agent: <agent id>` and `Chat: <chat id>`.
 */
export interface CommitIdentity {
  name: string;
  email: string;
  /** in the order the hook adds them */
  trailers: ReadonlyArray<readonly [key: string, value: string]>;
}

/** What a commit identity is made of: the member, the name their sign-in gave (else their user id), the agent and the chat. */
export interface CommitIdentityOf {
  user: string;
  displayName?: string | undefined;
  agent?: string | undefined;
  chat: string;
}

/** The domain of the address a member without one gets: `.invalid` never resolves (RFC 2606), so no mail goes anywhere. */
export const noReplyDomain = "users.noreply.invalid";

// git drops `<`, `>` and line breaks from a name and refuses an address holding them; control characters hide text
const unsafeInPerson = /[<>\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const plainAddress = /^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+$/;

export function commitIdentity(of: CommitIdentityOf): CommitIdentity {
  const name = withoutCrud(of.displayName ?? "") || withoutCrud(of.user) || "member";
  const trailers: Array<readonly [string, string]> = [];
  if (of.agent !== undefined) trailers.push(["Agent", trailerValue(of.agent)]);
  trailers.push(["Chat", trailerValue(of.chat)]);
  return { name, email: memberAddress(of.user), trailers };
}

// git drops these from both ends of a name (ident.c's `crud`), so a name is given without them or it would not match
const crudAtEnds = /^[\u0000-\u0020,:;<>"\\']+|[\u0000-\u0020,:;<>"\\']+$/gu;

/** A name as git records it: no `<`, `>`, control or bidi character, none of git's "crud" at either end. */
function withoutCrud(text: string): string {
  return [...text.replace(unsafeInPerson, "")].slice(0, 200).join("").replace(crudAtEnds, "");
}

/**
 * A member's address in commits: their user id when it is an e-mail address (a provider's `email` claim as the
 * user, OIDC_USER_CLAIM), else a no-reply address made of it, `<user id>@users.noreply.invalid`, with any character
 * an address may not hold made `-` and a short hash of the id added then, so two members never share one.
 */
export function memberAddress(user: string): string {
  if (plainAddress.test(user)) return user;
  const local = user.replace(/[^A-Za-z0-9._+-]+/g, "-").replace(/^[.-]+|[.-]+$/g, "").slice(0, 40);
  const exact = local === user && local !== "";
  const suffix = exact ? "" : `${local === "" ? "" : "+"}${createHash("sha256").update(user).digest("hex").slice(0, 10)}`;
  return `${local}${suffix}@${noReplyDomain}`;
}

/** The GIT_* variables a command's git makes its commits with: the member as author and committer. */
export function commitEnvironment(identity: CommitIdentity): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
}

/**
 * The `commit-msg` hook the host writes into a command's `.git/hooks` before each command: `git interpret-trailers`
 * sets the trailers (replacing any the message had by the same key). It runs inside the command's sandbox, as the
 * command's own git, so it can do nothing the command could not; the host checks every new commit after the
 * command whatever the hook did (`refuseUnattributed`).
 */
export function commitMessageHook(identity: CommitIdentity): string {
  const trailers = identity.trailers.map(([key, value]) => `--trailer ${shellQuoted(`${key}: ${value}`)}`).join(" ");
  return `#!/bin/sh\n# Written by Agent Orchestrator before each command (docs/repositories.md "Commits by the model").\nexec git interpret-trailers --in-place --if-exists replace --if-missing add ${trailers} "$1"\n`;
}

/** Why a commit is not the model's as the host requires, or undefined when it is. */
export function unattributedReason(commit: ParsedCommit, identity: CommitIdentity): string | undefined {
  const short = commit.id.slice(0, 12);
  if (commit.author.name !== identity.name || commit.author.email !== identity.email) {
    return `commit ${short} names ${commit.author.name} <${commit.author.email}> as its author, not ${identity.name} <${identity.email}>`;
  }
  if (commit.committer.email !== identity.email) return `commit ${short} names ${commit.committer.email} as its committer, not ${identity.email}`;
  for (const [key, value] of identity.trailers) {
    const values = trailerValues(commit, key);
    if (values.length !== 1 || values[0] !== value) return `commit ${short} lacks the trailer "${key}: ${value}"`;
  }
  return undefined;
}

/**
 * Refuses the command's new commits unless each names the member and carries the trailers (RELIABILITY's
 * attribution rule; security case 310): a commit made with `--no-verify`, `--author`, another `core.hooksPath`, or
 * taken over from elsewhere (a cherry-pick keeps its author). The command's work is then not kept.
 */
export async function refuseUnattributed(commits: Array<{ id: string; content: Buffer }>, identity: CommitIdentity): Promise<void> {
  for (const { id, content } of commits) {
    const reason = unattributedReason(parseCommit(id, content), identity);
    if (reason === undefined) continue;
    throw new AppError(
      "COMMIT_REFUSED",
      `${reason}, so nothing the command changed was kept. Commits here are made with a plain \`git commit\` (no --no-verify, no --author, no hooks path of your own; its commit-msg hook adds the trailers); to take over another commit's change, cherry-pick it with -n and commit it yourself.`,
    );
  }
}

/** A trailer's value on one line, without characters that would hide text. */
function trailerValue(value: string): string {
  return value.replace(unsafeInPerson, "").trim();
}

/** `text` as one single-quoted word of /bin/sh. */
function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
