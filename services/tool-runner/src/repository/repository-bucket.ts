import { createReadStream, createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError, isCasConflict, putObjectPaced, readObjectChunks, retryNats } from "@agent-orchestrator/shared/runtime";
import { jetStreamNames } from "@agent-orchestrator/shared/wire";
import type { JetStreamClient, JetStreamManager, KV, ObjectStore } from "nats";
import type { z } from "zod";
import { storeFailure } from "../store/store-failure.js";
import { notTaken, repeatable } from "../store/store-retries.js";
import { storedJson } from "../store/stored-json.js";
import {
  PackList,
  RefsValue,
  RepositoryRecord,
  TreeState,
  packListKey,
  packObjectName,
  recordKey,
  refsKey,
  treeKey,
  treePrefix,
} from "./repository-values.js";

/** A value read with the KV revision a compare-and-set must name (0: the key holds nothing). */
export interface Versioned<T> {
  value: T | undefined;
  revision: number;
}

/** Compare-and-set rounds a change of one key may take when other writers keep winning. */
export const maxRounds = 32;

const encoder = new TextEncoder();

/**
 * Where a repository's durable bytes are (docs/repositories.md "Where every byte lives"): the KV bucket
 * `repositories` (records, pack lists, refs, working-tree states, each moved by compare-and-set), the Object
 * Store `repository_packs` (packs and their indexes, never changed once stored) and the KV bucket
 * `repository_credentials` (a remote's credential, which only the tool-runner's NATS user may read).
 */
export class RepositoryBucket {
  private constructor(
    private readonly values: KV,
    private readonly packs: ObjectStore,
    private readonly credentials: KV,
    private readonly manager: JetStreamManager,
    private readonly packsBucket: string,
    private readonly flush: () => Promise<void>,
  ) {}

  /** Opens (and creates where missing) the buckets of `subjectPrefix`'s set with `replicas` copies. */
  static async open(js: JetStreamClient, settings: { subjectPrefix: string; replicas: number; flush: () => Promise<void> }): Promise<RepositoryBucket> {
    const names = jetStreamNames(settings.subjectPrefix);
    const replicas = settings.replicas;
    const [values, packs, credentials] = await Promise.all([
      js.views.kv(names.repositoriesBucket, { history: 1, replicas }),
      js.views.os(names.repositoryPacksStore, { replicas }),
      js.views.kv(names.repositoryCredentialsBucket, { history: 1, replicas }),
    ]);
    return new RepositoryBucket(values, packs, credentials, await js.jetstreamManager(), names.repositoryPacksStore, settings.flush);
  }

  record(project: string): Promise<Versioned<RepositoryRecord>> {
    return this.read(recordKey(project), RepositoryRecord);
  }

  /** Creates the record: the attach. REPOSITORY_EXISTS when the project has one. */
  async createRecord(project: string, record: RepositoryRecord): Promise<number> {
    try {
      return await retryNats(() => this.values.create(recordKey(project), encode(record)), notTaken);
    } catch (error) {
      if (isCasConflict(error)) throw repositoryExists();
      throw storeFailure(error);
    }
  }

  /** Removes the record at `revision`: the detach. False when it moved (another detach or attach came first). */
  async removeRecord(project: string, revision: number): Promise<boolean> {
    try {
      await retryNats(() => this.values.delete(recordKey(project), { previousSeq: revision }), notTaken);
      return true;
    } catch (error) {
      if (isCasConflict(error)) return false;
      throw storeFailure(error);
    }
  }

  packList(project: string, generation: string): Promise<Versioned<PackList>> {
    return this.read(packListKey(project, generation), PackList);
  }

  /** Adds packs (stored already) to the pack list; returns the list as it now is. */
  addPacks(project: string, generation: string, added: PackList["packs"]): Promise<PackList> {
    return this.change(packListKey(project, generation), PackList, (current) => {
      const known = new Set((current?.packs ?? []).map((pack) => pack.name));
      return { packs: [...(current?.packs ?? []), ...added.filter((pack) => !known.has(pack.name))] };
    });
  }

  /** Puts one pack (stored already, holding every object of `replaced`) in the place of the packs `replaced`. */
  async replacePacks(project: string, generation: string, replaced: ReadonlySet<string>, merged: PackList["packs"][number]): Promise<void> {
    await this.change(packListKey(project, generation), PackList, (current) => ({
      packs: [...(current?.packs ?? []).filter((pack) => !replaced.has(pack.name) && pack.name !== merged.name), merged],
    }));
  }

  /** Removes a pack's two files from the store (a pack no list names any more); best effort. */
  async removePack(project: string, generation: string, pack: string): Promise<void> {
    await Promise.all((["pack", "idx"] as const).map((extension) => this.packs.delete(packObjectName(project, generation, pack, extension)).catch(() => undefined)));
  }

  refs(project: string, generation: string): Promise<Versioned<RefsValue>> {
    return this.read(refsKey(project, generation), RefsValue);
  }

  /** Moves the refs by `change` of the value read (undefined: none yet), made again when another writer came first. */
  changeRefs(project: string, generation: string, change: (current: RefsValue | undefined) => RefsValue): Promise<RefsValue> {
    return this.change(refsKey(project, generation), RefsValue, change);
  }

  treeState(project: string, generation: string, branch: string): Promise<Versioned<TreeState>> {
    return this.read(treeKey(project, generation, branch), TreeState);
  }

  /** Puts a working tree's state if it is still at `revision` (0: none yet); false when another writer came first. */
  async putTreeState(project: string, generation: string, state: TreeState, revision: number): Promise<number | false> {
    const key = treeKey(project, generation, state.branch);
    try {
      return await retryNats(() => (revision === 0 ? this.values.create(key, encode(state)) : this.values.update(key, encode(state), revision)), notTaken);
    } catch (error) {
      if (isCasConflict(error)) return false;
      throw storeFailure(error);
    }
  }

  /** Every working tree's state of a repository. */
  async treeStates(project: string, generation: string): Promise<TreeState[]> {
    const keys: string[] = [];
    for await (const key of await this.values.keys(`${treePrefix(project, generation)}.*`)) keys.push(key);
    const states = await Promise.all(keys.map((key) => this.read(key, TreeState)));
    return states.flatMap((state) => (state.value ? [state.value] : []));
  }

  /** Stores a pack's file from local disk, streamed. */
  async putPackFile(project: string, generation: string, pack: string, extension: "pack" | "idx", file: string): Promise<void> {
    const name = packObjectName(project, generation, pack, extension);
    try {
      await retryNats(async () => {
        const known = await this.packs.info(name);
        if (!known || known.deleted) await putObjectPaced(this.flush, this.packs, name, createReadStream(file));
      }, repeatable);
    } catch (error) {
      throw storeFailure(error);
    }
  }

  /** Writes a stored pack's file to local disk, chunk by chunk. */
  async getPackFile(project: string, generation: string, pack: string, extension: "pack" | "idx", file: string): Promise<void> {
    const name = packObjectName(project, generation, pack, extension);
    const info = await retryNats(() => this.packs.info(name), repeatable);
    if (!info || info.deleted) throw new AppError("INTERNAL", `A pack of the repository is missing from the store: ${pack}`);
    await pipeline(Readable.from(readObjectChunks(this.manager, this.packsBucket, info)), createWriteStream(file, { mode: 0o444 }));
  }

  async putCredential(project: string, generation: string, credential: string): Promise<void> {
    await retryNats(() => this.credentials.put(`${project}.${generation}`, encoder.encode(credential)), repeatable).catch((error: unknown) => {
      throw storeFailure(error);
    });
  }

  /** The remote's credential of the repository's generation, or undefined when none was given. */
  async credential(project: string, generation: string): Promise<string | undefined> {
    const entry = await retryNats(() => this.credentials.get(`${project}.${generation}`), repeatable).catch((error: unknown) => {
      throw storeFailure(error);
    });
    return entry?.operation === "PUT" ? entry.string() : undefined;
  }

  /**
   * Forgets a detached generation whole: its pack list, refs, working trees, credential and packs. Best effort:
   * nothing names them any more, so what is left is only space.
   */
  async purge(project: string, generation: string): Promise<void> {
    const packs = (await this.packList(project, generation).catch(() => undefined))?.value?.packs ?? [];
    const keys: string[] = [packListKey(project, generation), refsKey(project, generation)];
    for await (const key of await this.values.keys(`${treePrefix(project, generation)}.*`)) keys.push(key);
    await Promise.all([
      ...keys.map((key) => this.values.purge(key).catch(() => undefined)),
      this.credentials.purge(`${project}.${generation}`).catch(() => undefined),
      ...packs.flatMap((pack) => (["pack", "idx"] as const).map((extension) => this.packs.delete(packObjectName(project, generation, pack.name, extension)).catch(() => undefined))),
    ]);
  }

  private async read<T>(key: string, schema: z.ZodType<T>): Promise<Versioned<T>> {
    const entry = await retryNats(() => this.values.get(key), repeatable);
    if (!entry || entry.operation !== "PUT") return { value: undefined, revision: entry?.revision ?? 0 };
    const parsed = schema.safeParse(storedJson(entry.string()));
    if (!parsed.success) throw new AppError("INTERNAL", `A stored repository value is damaged: ${key.split(".")[0] ?? ""}`);
    return { value: parsed.data, revision: entry.revision };
  }

  private async change<T>(key: string, schema: z.ZodType<T>, change: (current: T | undefined) => T): Promise<T> {
    for (let round = 0; round < maxRounds; round += 1) {
      const current = await this.read(key, schema);
      const next = change(current.value);
      try {
        await retryNats(() => (current.revision === 0 ? this.values.create(key, encode(next)) : this.values.update(key, encode(next), current.revision)), notTaken);
        return next;
      } catch (error) {
        if (!isCasConflict(error)) throw storeFailure(error);
      }
    }
    throw new AppError("BUSY", "The repository is being changed by others all the time; try again");
  }
}

/** A project that has a repository already. */
export function repositoryExists(): AppError {
  return new AppError("REPOSITORY_EXISTS", "The project has a repository already; detach it first");
}

function encode(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}
