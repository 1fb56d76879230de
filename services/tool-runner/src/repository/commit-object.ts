import { AppError } from "@agent-orchestrator/shared/runtime";

/** A person of a commit (its author or committer) as git wrote them. */
export interface CommitPerson {
  name: string;
  email: string;
  /** ISO time, in UTC */
  at: string;
}

/** A commit as the host read it from its object: never through git's formatting, so nothing in a message can shift a field. */
export interface ParsedCommit {
  id: string;
  tree: string;
  parents: string[];
  author: CommitPerson;
  committer: CommitPerson;
  /** the whole message, as bytes decoded from UTF-8 */
  message: string;
  /** the `Token: value` lines of the message's last paragraph, in order (git's trailers) */
  trailers: Array<[key: string, value: string]>;
}

const personLine = /^(.*) <([^<>]*)> (\d+) [+-]\d{4}$/;
const trailerLine = /^([A-Za-z0-9][A-Za-z0-9-]*):[ \t]*(.*)$/;

/** Parses the content of commit object `id`. */
export function parseCommit(id: string, content: Buffer): ParsedCommit {
  const text = content.toString("utf8");
  const split = text.indexOf("\n\n");
  const headers = (split === -1 ? text : text.slice(0, split)).split("\n");
  const message = split === -1 ? "" : text.slice(split + 2);
  let tree: string | undefined;
  const parents: string[] = [];
  let author: CommitPerson | undefined;
  let committer: CommitPerson | undefined;
  for (const line of headers) {
    // a header's continuation lines (a signature) start with a space
    if (line.startsWith(" ")) continue;
    const space = line.indexOf(" ");
    const name = line.slice(0, space);
    const value = line.slice(space + 1);
    if (name === "tree") tree = value;
    else if (name === "parent") parents.push(value);
    else if (name === "author") author = person(value);
    else if (name === "committer") committer = person(value);
  }
  if (tree === undefined || !author || !committer) throw new AppError("INTERNAL", `Not a commit git would write: ${id}`);
  return { id, tree, parents, author, committer, message, trailers: trailersOf(message) };
}

/** The values of trailer `key` (case ignored, as git does). */
export function trailerValues(commit: ParsedCommit, key: string): string[] {
  const wanted = key.toLowerCase();
  return commit.trailers.filter(([name]) => name.toLowerCase() === wanted).map(([, value]) => value);
}

function person(value: string): CommitPerson | undefined {
  const match = personLine.exec(value);
  if (!match) return undefined;
  return { name: match[1] ?? "", email: match[2] ?? "", at: new Date(Number(match[3]) * 1000).toISOString() };
}

/**
 * The `Token: value` lines of the message's last paragraph (its subject alone has none). Git also takes a paragraph
 * that is only partly trailers as the trailer block, and its hook adds to that one; the other lines are skipped here.
 */
function trailersOf(message: string): Array<[string, string]> {
  const paragraphs = message.trimEnd().split(/\n[ \t]*\n/);
  if (paragraphs.length < 2) return [];
  const last = paragraphs[paragraphs.length - 1] ?? "";
  const trailers: Array<[string, string]> = [];
  for (const line of last.split("\n")) {
    const match = trailerLine.exec(line);
    if (match) trailers.push([match[1] ?? "", (match[2] ?? "").trim()]);
  }
  return trailers;
}
