import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { AppError } from "@agent-orchestrator/shared/runtime";
import type { GitRefUpdate, GitRpcRequest } from "@agent-orchestrator/shared/wire";
import { GitFailed, isAcceptedRefName } from "../git/index.js";
import type { AttachedRepository } from "../repository/index.js";
import { requiredRepository, type GitHttpDeps } from "./git-http-deps.js";
import { gitServiceOutput } from "./git-service.js";
import { PushCommandsRefused, hostCapabilities, readPushCommands, writePushCommands, zeroId, type PushCommand, type PushCommands } from "./push-commands.js";
import { readHostReport, writePushReport } from "./push-report.js";
import { PushedWorkingTrees } from "./pushed-working-trees.js";
import type { ReceivedBody } from "./transit-bodies.js";
import { serveRepository } from "./served-repository.js";

/** What a push came to: git's report for the client, and each ref's fate for the audit record. */
export interface PushOutcome {
  report: Buffer;
  updates: GitRefUpdate[];
}

/** The start of a push read for its command list (REPOSITORY_MAX_REFS lines of at most a few hundred bytes). */
const commandsMaxBytes = 4 * 1024 * 1024;
/** receive-pack's plain report: a line per ref */
const hostReportMaxBytes = 4 * 1024 * 1024;

/**
 * A push's `POST /git/<id>.git/git-receive-pack` (docs/repositories.md "Plain git over HTTP"):
 * 1. the command list is read and each ref checked (git's and our name rules, RELIABILITY case 93; the default
 *    branch is never deleted; a chat's working tree on the branch: pushed-working-trees.ts);
 * 2. the host's `git receive-pack --stateless-rpc` takes the pack into a repository of the moment's refs
 *    (served-repository.ts), with `receive.fsckObjects` (git's fsck checks every object: a tree naming `.git`,
 *    case 92) and its connectivity check (every object the new refs need is there), no hook and no config but
 *    the host's;
 * 3. the pack it kept is stored in the repository's packs, within REPOSITORY_MAX_BYTES, and the pack list moves;
 * 4. the refs move by compare-and-set from the values the client saw (a ref moved meanwhile is refused: fetch
 *    first); then the chats' working trees on the moved branches.
 * Refused refs, a pack git refuses, a push over a limit: the client gets git's own report with the reason, and
 * nothing of what was refused is stored (a pack no ref names is never stored).
 */
export async function receivePack(deps: GitHttpDeps, request: GitRpcRequest): Promise<PushOutcome> {
  const attached = await requiredRepository(deps, request.project_id);
  const received = await deps.bodies.receive(request.body);
  try {
    let parsed: PushCommands | undefined;
    try {
      parsed = readPushCommands(await received.head(commandsMaxBytes), deps.repositories.settings.maxRefs);
    } catch (error) {
      if (error instanceof PushCommandsRefused) return refusedWhole(error.capabilities, [], error.message);
      throw error;
    }
    if (parsed === undefined) {
      if (request.cut_at !== undefined || received.size > commandsMaxBytes) return refusedWhole([], [], tooLarge(request.cut_at ?? commandsMaxBytes));
      throw new AppError("BAD_REQUEST", "The push request ends before its command list does");
    }
    // git's probe before a large push (`0000`), and a request with nothing to do: an empty answer
    if (parsed.commands.length === 0) return { report: Buffer.alloc(0), updates: [] };
    if (request.cut_at !== undefined) return refusedWhole(parsed.capabilities, parsed.commands, tooLarge(request.cut_at));
    return await push(deps, attached, parsed, received, request.user);
  } finally {
    await received.discard();
  }
}

async function push(deps: GitHttpDeps, attached: AttachedRepository, parsed: PushCommands, received: ReceivedBody, user: string): Promise<PushOutcome> {
  const { commands, capabilities } = parsed;
  const statuses = new Map<string, string>();
  for (const command of commands) {
    const reason = refusedName(command, attached.record.default_branch);
    if (reason !== undefined) statuses.set(command.ref, reason);
  }
  const trees = new PushedWorkingTrees(attached, { leaseMs: deps.repositories.settings.leaseMs, now: deps.now }, deps.logger);
  const moved = new Set<string>();
  try {
    for (const [ref, reason] of await trees.hold(commands.filter((command) => !statuses.has(command.ref)))) statuses.set(ref, reason);
    const atomic = capabilities.includes("atomic");
    if (atomic && statuses.size > 0) for (const command of commands) if (!statuses.has(command.ref)) statuses.set(command.ref, "atomic push failed");
    const accepted = commands.filter((command) => !statuses.has(command.ref));
    let unpack = "ok";
    if (accepted.length > 0) {
      const served = await serveRepository(attached);
      try {
        const host = await hostReceive(deps, served.gitDir, parsed, accepted, received);
        unpack = host.unpack;
        for (const command of accepted) statuses.set(command.ref, host.unpack === "ok" ? (host.refs.get(command.ref) ?? "not updated") : "unpacker error");
        const taken = accepted.filter((command) => statuses.get(command.ref) === "ok");
        if (taken.length > 0) {
          const refusal = await storePacks(deps, attached, served.objectDirectory);
          if (refusal !== undefined) {
            unpack = refusal;
            for (const command of taken) statuses.set(command.ref, "unpacker error");
          } else {
            for (const [ref, status] of await moveRefs(deps, attached, taken, atomic)) statuses.set(ref, status);
            for (const command of taken) if (statuses.get(command.ref) === "ok") moved.add(command.ref);
          }
        }
      } finally {
        await served.remove();
      }
    }
    const refs = commands.map((command) => ({ ref: command.ref, status: statuses.get(command.ref) ?? "not updated" }));
    return { report: writePushReport(capabilities, { unpack, refs }), updates: commands.map((command) => ({ ...command, status: statuses.get(command.ref) ?? "not updated" })) };
  } finally {
    await trees.release(moved, user);
  }
}

/** A push refused whole (before its pack is read): git shows `remote unpack failed: <reason>`. */
function refusedWhole(capabilities: readonly string[], commands: readonly PushCommand[], reason: string): PushOutcome {
  const refs = commands.map((command) => ({ ref: command.ref, status: "refused" }));
  return { report: writePushReport(capabilities, { unpack: reason, refs }), updates: commands.map((command) => ({ ...command, status: reason })) };
}

function tooLarge(bytes: number): string {
  return `the push is larger than ${bytes} bytes (GIT_PUSH_MAX_BYTES); nothing was stored`;
}

/** Why the push may not move this ref by its name alone, or undefined. */
function refusedName(command: PushCommand, defaultBranch: string): string | undefined {
  if (!isAcceptedRefName(command.ref)) return "ref name not allowed: printable ASCII under refs/heads/ or refs/tags/, by git's rules, at most 255 characters";
  if (command.new === zeroId && command.ref === `refs/heads/${defaultBranch}`) return "the default branch cannot be deleted";
  return undefined;
}

/** Runs the host's receive-pack for the `accepted` commands on the served repository; its report. */
async function hostReceive(deps: GitHttpDeps, gitDir: string, parsed: PushCommands, accepted: readonly PushCommand[], received: ReceivedBody): Promise<{ unpack: string; refs: Map<string, string> }> {
  const commandList = writePushCommands(parsed.shallow, accepted, hostCapabilities(parsed.capabilities));
  const input = Readable.from(
    (async function* () {
      yield commandList;
      yield* received.from(parsed.packOffset);
    })(),
  );
  const settings = [
    ["receive.fsckObjects", "true"],
    // every pushed object is kept as one pack (indexed by `git index-pack --strict --fix-thin`), never as loose files
    ["receive.unpackLimit", "1"],
    ["receive.denyDeletes", "false"],
    ["receive.denyNonFastForwards", "false"],
    ["receive.shallowUpdate", "false"],
  ] as const;
  try {
    const { stdout, stderr } = await gitServiceOutput({ service: "receive-pack", gitDir, input, settings, timeoutMs: deps.timeoutMs }, hostReportMaxBytes);
    const report = readHostReport(stdout);
    if (report) return report.unpack === "ok" ? report : { ...report, unpack: unpackReason(report.unpack, stderr) };
    deps.logger.warn("git receive-pack printed no report");
  } catch (error) {
    if (!(error instanceof GitFailed)) throw error;
    deps.logger.warn({ stderr: error.stderr.slice(0, 500) }, "git receive-pack failed");
  }
  return { unpack: "the pack could not be read", refs: new Map() };
}

/**
 * Why git did not take a pack, in words a person can act on: the check git's fsck refused an object for (a tree
 * naming `.git`, case 92) when it says so, else git's own short reason. Never git's stderr whole (it names host folders).
 */
function unpackReason(unpack: string, stderr: string): string {
  const fsck = /error: object [0-9a-f]+: (\w+): (.{0,120})/.exec(stderr);
  if (fsck) return `git's checks refuse an object (${fsck[1]}: ${fsck[2]}); nothing was stored`;
  return `${unpack}; nothing was stored`;
}

/**
 * Stores the pack receive-pack kept in the served repository (none when the push brought no object) in the
 * repository's packs; the reason it may not when the repository would pass REPOSITORY_MAX_BYTES.
 */
async function storePacks(deps: GitHttpDeps, attached: AttachedRepository, objectDirectory: string): Promise<string | undefined> {
  const folder = path.join(objectDirectory, "pack");
  const packs = (await readdir(folder)).filter((name) => name.endsWith(".pack")).map((name) => name.slice(0, -".pack".length));
  const sizes = await Promise.all(packs.map(async (pack) => (await stat(path.join(folder, `${pack}.pack`))).size));
  const added = sizes.reduce((sum, size) => sum + size, 0);
  const stored = ((await attached.bucket.packList(attached.project, attached.record.generation)).value?.packs ?? []).reduce((sum, pack) => sum + pack.bytes, 0);
  const maxBytes = deps.repositories.settings.maxBytes;
  if (stored + added > maxBytes) return `the repository would hold ${stored + added} bytes of objects; at most ${maxBytes} (REPOSITORY_MAX_BYTES). Nothing was stored`;
  for (const [index, pack] of packs.entries()) {
    await attached.local.storePack(pack, path.join(folder, `${pack}.pack`), path.join(folder, `${pack}.idx`), sizes[index] ?? 0);
  }
  return undefined;
}

/**
 * Moves the refs of `taken` by compare-and-set, each from the value the client saw: a ref that moved meanwhile is
 * refused (with `atomic`, all are); creations past REPOSITORY_MAX_REFS are refused. Returns each ref's status.
 */
async function moveRefs(deps: GitHttpDeps, attached: AttachedRepository, taken: readonly PushCommand[], atomic: boolean): Promise<Map<string, string>> {
  const maxRefs = deps.repositories.settings.maxRefs;
  let statuses = new Map<string, string>();
  await attached.bucket.changeRefs(attached.project, attached.record.generation, (current) => {
    statuses = new Map();
    const refs = new Map((current?.refs ?? []).map((ref) => [ref.name, ref.id]));
    for (const command of taken) {
      if ((refs.get(command.ref) ?? zeroId) !== command.old) statuses.set(command.ref, "the ref moved since you fetched; fetch first");
    }
    if (atomic && statuses.size > 0) {
      for (const command of taken) if (!statuses.has(command.ref)) statuses.set(command.ref, "atomic push failed");
      return { refs: current?.refs ?? [] };
    }
    for (const command of taken) {
      if (statuses.has(command.ref)) continue;
      if (command.new === zeroId) refs.delete(command.ref);
      else if (refs.has(command.ref) || refs.size < maxRefs) refs.set(command.ref, command.new);
      else {
        statuses.set(command.ref, `the repository holds ${maxRefs} branches and tags, the most it may (REPOSITORY_MAX_REFS)`);
        continue;
      }
      statuses.set(command.ref, "ok");
    }
    return { refs: [...refs].map(([name, id]) => ({ name, id })) };
  });
  return statuses;
}
