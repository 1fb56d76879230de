import { AppError } from "@agent-orchestrator/shared/runtime";
import { gitEnvironment, hardenedSettings, spawnGit, type GitPlace, type SpawnedGit } from "./git-command.js";

/** One object as git holds it (`content` empty from a reader of sizes). */
export interface GitObject {
  type: "blob" | "tree" | "commit" | "tag";
  size: number;
  content: Buffer;
}

interface Pending {
  resolve: (object: GitObject | undefined) => void;
  reject: (error: Error) => void;
}

const objectIdPattern = /^[0-9a-f]{40}$/;

/**
 * Reads objects through one long-lived `git cat-file --batch` of a repository the host made (or
 * `--batch-check`, types and sizes only, with `sizesOnly`): a file read or a tree walked costs a line on a pipe,
 * not a process. A pack stored after the process started is found (git looks at its packs again when an object
 * is missing). A process that dies is started again on the next read.
 */
export class ObjectReader {
  private spawned: SpawnedGit | undefined;
  private readonly pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);

  constructor(
    private readonly place: GitPlace,
    private readonly sizesOnly = false,
  ) {}

  /** The object `id`, or undefined when the repository does not hold it. */
  read(id: string): Promise<GitObject | undefined> {
    if (!objectIdPattern.test(id)) return Promise.reject(new AppError("INTERNAL", `Not an object id: ${id.slice(0, 60)}`));
    const { child } = this.process();
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      child.stdin.write(`${id}\n`);
    });
  }

  /** Stops the process; reads waiting fail. */
  close(): void {
    this.fail(new AppError("INTERNAL", "The object reader was closed"));
    this.spawned?.kill();
    this.spawned = undefined;
  }

  private process(): SpawnedGit {
    if (this.spawned) return this.spawned;
    const args = [...hardenedSettings.flatMap(([key, value]) => ["-c", `${key}=${value}`]), "cat-file", this.sizesOnly ? "--batch-check" : "--batch"];
    // no bound on its life: it serves reads for as long as the repository is used, and ends when its stdin closes with the tool-runner
    const spawned = spawnGit(args, { env: gitEnvironment(this.place), timeoutMs: null });
    const { child } = spawned;
    child.stdout.on("data", (chunk: Buffer) => this.take(chunk));
    child.stderr.resume();
    child.stdin.on("error", () => undefined);
    const ended = (error: Error) => {
      if (this.spawned === spawned) this.spawned = undefined;
      this.buffer = Buffer.alloc(0);
      this.fail(error);
    };
    child.once("error", (error) => ended(new AppError("INTERNAL", "git cat-file could not be run", { cause: error })));
    child.once("close", () => ended(new AppError("INTERNAL", "git cat-file stopped")));
    this.spawned = spawned;
    return spawned;
  }

  private take(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const lineEnd = this.buffer.indexOf(0x0a);
      if (lineEnd === -1) return;
      const header = this.buffer.subarray(0, lineEnd).toString("latin1");
      const waiting = this.pending[0];
      if (header.endsWith(" missing")) {
        this.buffer = this.buffer.subarray(lineEnd + 1);
        this.pending.shift();
        waiting?.resolve(undefined);
        continue;
      }
      const [, type, sizeText] = header.split(" ");
      const size = Number(sizeText);
      const contentBytes = this.sizesOnly ? 0 : size + 1;
      if (this.buffer.length < lineEnd + 1 + contentBytes) return;
      const content = this.sizesOnly ? Buffer.alloc(0) : Buffer.from(this.buffer.subarray(lineEnd + 1, lineEnd + 1 + size));
      this.buffer = this.buffer.subarray(lineEnd + 1 + contentBytes);
      this.pending.shift();
      if (type === "blob" || type === "tree" || type === "commit" || type === "tag") waiting?.resolve({ type, size, content });
      else waiting?.reject(new AppError("INTERNAL", `git cat-file answered an unknown type: ${String(type)}`));
    }
  }

  private fail(error: Error): void {
    for (const waiting of this.pending.splice(0)) waiting.reject(error);
  }
}
