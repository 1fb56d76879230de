import type { FileRevision, FileSpaceRef } from "@agent-orchestrator/shared/wire";
import type { JetStreamClient, KV } from "nats";
import { decodeIndex, encodeIndex, indexKey, type LoadedIndex } from "./space-index.js";

/*
 * Workaround for nats-server issue 4320, fixed in nats-server 2.9.21: in a cluster, an older server can
 * acknowledge two compare-and-sets of one key made from the same revision, and the later one then drops the
 * other's change (docs/operations.md "nats-server before 2.9.21 in a cluster"). A space's index moves by
 * compare-and-set, and two chats writing one project at once is ordinary, so with JS_REPLICAS above 1 every
 * index write is checked here after its acknowledgement and made again on top when it was acknowledged over
 * another's. On one server it is not used.
 *
 * When it can go: once nats-server 2.9.21 is the oldest server supported with JS_REPLICAS above 1
 * (docs/operations.md "nats-server versions"). Then delete this file, the guard's two calls and its put-back in
 * index-commit.ts, and `indexHistory` (existing buckets may keep their second value).
 */

/** Values kept per index key: a write acknowledged over another's can still read the one it dropped (`overwritten`). */
export const indexHistory = 2;

/** The reads the guard needs of the index bucket's stream, made apart from the KV view (`ClusterCasGuard.open`). */
export interface IndexStreamReads {
  /** a key's value as the stream's leader holds it now (not a replica's direct get); undefined when never written */
  leaderRead: (key: string) => Promise<string | undefined>;
  /**
   * the value another compare-and-set stored for `key` between revision `base` and `written` (this write's),
   * if any: there should be none, and one found means this write was acknowledged over it
   */
  interleaved: (key: string, base: number, written: number) => Promise<string | undefined>;
}

/** The direct get by next subject, as nats.js 2.29 has it. */
interface DirectGets {
  getMessage(stream: string, query: { seq: number; next_by_subj: string }): Promise<{ seq: number; data: Uint8Array }>;
}

/** The checks of a clustered index's compare-and-sets against nats-server issue 4320 (above). */
export class ClusterCasGuard {
  constructor(
    private readonly index: KV,
    private readonly reads: IndexStreamReads,
  ) {}

  /**
   * The guard of the index bucket `bucket` (opened as `index`): a key's value read from its stream's leader (a
   * stream message get, not a direct get a follower may answer), and the first value of a key stored after a
   * given revision (a direct get by next subject).
   */
  static async open(js: JetStreamClient, index: KV, bucket: string): Promise<ClusterCasGuard> {
    const manager = await js.jetstreamManager();
    // the manager has direct gets; nats.js 2.29 leaves them out of the interface
    const direct = (manager as unknown as { direct: DirectGets }).direct;
    const stream = `KV_${bucket}`;
    const subject = (key: string) => `$KV.${bucket}.${key}`;
    const decoder = new TextDecoder();
    return new ClusterCasGuard(index, {
      leaderRead: async (key) => {
        try {
          return decoder.decode((await manager.streams.getMessage(stream, { last_by_subj: subject(key) })).data);
        } catch (error) {
          // no message for the subject: the key was never written
          if ((error as { api_error?: { err_code?: number } }).api_error?.err_code === 10037) return undefined;
          throw error;
        }
      },
      interleaved: async (key, base, written) => {
        const message = await direct.getMessage(stream, { seq: base + 1, next_by_subj: subject(key) });
        return message.seq < written ? decoder.decode(message.data) : undefined;
      },
    });
  }

  /**
   * The index another writer stored between `base` and this write's `stored` revision, which this write (made
   * from `base`) was acknowledged over, dropping that writer's revisions, as the index to make this write again
   * on top of, at `stored`. Undefined when there is none or it cannot be told.
   */
  async overwritten(space: FileSpaceRef, base: number, stored: number): Promise<LoadedIndex | undefined> {
    const text = await this.reads.interleaved(indexKey(space), base, stored).catch(() => undefined);
    return decodeIndex(text, stored);
  }

  /**
   * Whether the index the stream's leader holds still has what this write recorded: a write that finds its own
   * revisions gone (or replaced by another writer's of the same number) is made again on top. A later write of
   * the same file has a higher revision and was made from an index that held this one. When the leader cannot
   * be asked, the acknowledgement stands.
   */
  async survived(space: FileSpaceRef, written: readonly FileRevision[]): Promise<boolean> {
    let text: string | undefined;
    try {
      text = await this.reads.leaderRead(indexKey(space));
    } catch {
      return true;
    }
    const latest = decodeIndex(text, 0);
    if (!latest) return false;
    return written.every((mine) => {
      const now = latest.files.get(mine.path);
      if (!now || now.revision < mine.revision) return false;
      return now.revision > mine.revision || (now.sha256 === mine.sha256 && now.updated_at === mine.updated_at && JSON.stringify(now.author) === JSON.stringify(mine.author));
    });
  }

  /**
   * Puts the other writer's index found by `overwritten` back as it was, when the change made again on top of it
   * cannot be (a `modify` whose file it moved): best effort, as a lost round.
   */
  async putBack(space: FileSpaceRef, overwritten: LoadedIndex): Promise<void> {
    await this.index.update(indexKey(space), encodeIndex(overwritten.files, overwritten.repository), overwritten.kvRevision).catch(() => undefined);
  }
}
