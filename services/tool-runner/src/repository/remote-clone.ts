import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { GitFailed, runGit } from "../git/git-command.js";
import { checkedImport, repositoryRefused, type ImportLimits, type ImportedPack, type ImportedRef } from "./imported-pack.js";

/** Where a clone comes from; `credential` is a secret (docs/repositories.md "What a user does"). */
export interface CloneSource {
  url: string;
  branch?: string | undefined;
  username?: string | undefined;
  credential?: string | undefined;
}

/** What a clone may reach and take. */
export interface CloneSettings extends ImportLimits {
  timeoutMs: number;
  /** hosts a clone may reach; empty: any */
  remoteHosts: readonly string[];
  /** `http://` too (a remote on a private network, or a test's), not only `https://` */
  allowHttp: boolean;
}

const sizeCheckMs = 500;

/**
 * The remote's branches and tags fetched into the empty bare repository `gitDir` with the host's hardened git
 * (`transfer.fsckObjects`, no redirects, https only unless the operator allows http, one pack kept). The
 * credential goes to git as an `http.extraHeader` in its environment, never in its arguments, and never in
 * what comes back: git's messages are for the log, and the error a user sees is one of a few plain reasons. A
 * fetch growing past REPOSITORY_MAX_BYTES is stopped.
 */
export async function cloneRemote(source: CloneSource, gitDir: string, settings: CloneSettings): Promise<{ imported: ImportedPack; url: string }> {
  const url = checkedUrl(source.url, settings);
  const remote = { gitDir, secretConfig: remoteAuthorization(source), protocols: remoteProtocols(settings), timeoutMs: settings.timeoutMs };
  let head: string | undefined;
  try {
    const symref = await runGit({ ...remote, args: ["ls-remote", "--symref", "--", url, "HEAD"] });
    head = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(symref.stdout.toString("utf8"))?.[1];
    const tooLarge = new AbortController();
    const watch = setInterval(() => {
      void folderBytes(path.join(gitDir, "objects")).then((bytes) => {
        if (bytes > settings.maxBytes) tooLarge.abort();
      });
    }, sizeCheckMs);
    try {
      await runGit({ ...remote, signal: tooLarge.signal, args: ["-c", "transfer.unpackLimit=1", "fetch", "--no-tags", "--quiet", "--", url, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"] });
    } catch (error) {
      if (tooLarge.signal.aborted) throw repositoryRefused(`the remote's objects pass ${settings.maxBytes} bytes (REPOSITORY_MAX_BYTES)`);
      throw error;
    } finally {
      clearInterval(watch);
    }
  } catch (error) {
    if (error instanceof GitFailed) throw repositoryRefused(fetchReason(error.stderr), error);
    throw error;
  }
  const listed = await runGit({ gitDir, args: ["for-each-ref", "--format=%(refname) %(objectname)"] });
  const refs: ImportedRef[] = listed.stdout
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [name = "", id = ""] = line.split(" ");
      return { name, id };
    });
  if (source.branch !== undefined && !refs.some((ref) => ref.name === `refs/heads/${source.branch}`)) throw repositoryRefused(`the remote has no branch ${JSON.stringify(source.branch.slice(0, 80))}`);
  return { imported: await checkedImport(gitDir, refs, source.branch ?? head, settings), url };
}

/**
 * The URL as git will be given it: https (or http when allowed), no user or password, an allowed host. Checked
 * again at every push: the operator may have narrowed REPOSITORY_REMOTE_HOSTS or REPOSITORY_ALLOW_HTTP since.
 */
export function checkedUrl(text: string, settings: Pick<CloneSettings, "allowHttp" | "remoteHosts">, refuse: (reason: string) => Error = repositoryRefused): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse("the url is not a URL");
  }
  if (url.protocol !== "https:" && !(settings.allowHttp && url.protocol === "http:")) throw refuse("the url must start with https://");
  if (url.username !== "" || url.password !== "") throw refuse("give the user name and the credential as the body's username and credential, not in the url");
  if (url.hash !== "" || url.search !== "") throw refuse("the url may not have a query or a fragment");
  if (settings.remoteHosts.length > 0 && !settings.remoteHosts.includes(url.hostname.toLowerCase())) throw refuse(`the host ${url.hostname} is not one this system may clone from (REPOSITORY_REMOTE_HOSTS)`);
  return url.toString();
}

/** The protocols git may use to reach a remote: https, and http where the operator allows it. */
export function remoteProtocols(settings: Pick<CloneSettings, "allowHttp">): string[] {
  return settings.allowHttp ? ["https", "http"] : ["https"];
}

/**
 * The credential as git's `http.extraHeader`, given in git's environment (GIT_CONFIG_COUNT), never in its
 * arguments, which any user of the host can read in the process list.
 */
export function remoteAuthorization(source: { username?: string | undefined; credential?: string | undefined }): Array<readonly [string, string]> {
  if (source.credential === undefined) return [];
  return [["http.extraHeader", `Authorization: Basic ${Buffer.from(`${source.username ?? "x-access-token"}:${source.credential}`).toString("base64")}`]];
}

/** What a failed fetch says, as one of a few reasons (git's own words may hold the URL or host paths: the log has them). */
function fetchReason(stderr: string): string {
  if (/Authentication failed|could not read Username|401|403/.test(stderr)) return "the remote refused the credential, or needs one";
  if (/not found|404|does not appear to be a git repository/i.test(stderr)) return "the remote has no repository at that url";
  if (/redirect/i.test(stderr)) return "the remote answered with a redirect; give the url it redirects to";
  if (/fsck|hasDotgit|error in object/i.test(stderr)) return "git's checks refuse an object of the remote";
  if (/Could not resolve host|Connection refused|timed out|Failed to connect|SSL|certificate/i.test(stderr)) return "the remote could not be reached";
  return "the remote could not be fetched";
}

async function folderBytes(folder: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile()) bytes += (await stat(path.join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return bytes;
}
