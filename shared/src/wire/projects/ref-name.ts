import { z } from "zod";

/** The longest ref name kept (git allows longer; no branch a person types is). */
export const refNameMaxLength = 255;

/**
 * Whether `name` is a ref a repository here may hold (`refs/heads/main`, `refs/tags/v1.0`): git's own rules
 * (`git check-ref-format`: no `..`, no `@{`, no component starting with `.` or ending in `.lock`, none of
 * `~ ^ : ? * [ \`, no space or control character, no empty component) and stricter ones of ours, so a name
 * shown on a page or in a log cannot hide another (RELIABILITY case 93): printable ASCII only, so no bidi
 * or invisible character; only under `refs/heads/` or `refs/tags/`; at most `refNameMaxLength` characters.
 * Here in the wire schemas because the gateway checks a branch a chat is started on by the same rules.
 */
export function isAcceptedRefName(name: string): boolean {
  if (name.length === 0 || name.length > refNameMaxLength) return false;
  if (!/^[\x21-\x7e]+$/.test(name)) return false;
  if (!name.startsWith("refs/heads/") && !name.startsWith("refs/tags/")) return false;
  if (/[~^:?*[\\]/.test(name) || name.includes("..") || name.includes("@{") || name.endsWith(".") || name.endsWith("/")) return false;
  const components = name.split("/");
  if (components.length < 3) return false;
  return components.every((component) => component !== "" && !component.startsWith(".") && !component.endsWith(".lock") && component !== "@");
}

/** A branch's short name (`main`) as a ref, or undefined when it is not one `isAcceptedRefName` takes. */
export function branchRef(branch: string): string | undefined {
  const ref = `refs/heads/${branch}`;
  return isAcceptedRefName(ref) ? ref : undefined;
}

/** Where chats' own branches live (`chat/<chat id>`): no chat is started on one by name. */
export const chatBranchPrefix = "chat/";

/** The branch a chat works on when it was started on none (docs/repositories.md "Branches and working trees"). */
export function chatBranch(session: string): string {
  return `${chatBranchPrefix}${session}`;
}

/**
 * A branch a chat is started on (the chat start body's `branch`; docs/repositories.md "Branches and working
 * trees"): a branch name by git's rules and ours (`isAcceptedRefName`, RELIABILITY case 93), not under `chat/`,
 * where every chat has its own and one chat's name would open another chat's working tree.
 */
export const ChatBranchName = z
  .string()
  .min(1)
  .max(refNameMaxLength - "refs/heads/".length)
  .refine((name) => branchRef(name) !== undefined, {
    message: "not a branch name: printable ASCII by git's rules (no .., no ~ ^ : ? * [ \\ or space, no part starting with . or ending in .lock)",
  })
  .refine((name) => !name.startsWith(chatBranchPrefix), { message: "chat/… branches are the chats' own; name another branch" });
