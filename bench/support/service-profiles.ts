/**
 * BENCH_PROFILE=1: measure 5 runs its four service processes under `node --cpu-prof`, and once they have
 * stopped, writes one flame summary per service to bench/profiles/<service>.md, counting only the samples
 * taken from the measure's first measured window to its last (not the start-up nor the first warm-ups).
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatProfileSummary, summarizeCpuProfile, type CpuProfile, type ProfileWindow } from "./cpu-profile-summary.js";

export const profiling = process.env["BENCH_PROFILE"] === "1";

const profilesFolder = fileURLToPath(new URL("../profiles/", import.meta.url));

/** Microseconds on the clock V8's profiles use (the monotonic one). */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

export interface ServiceProfiles {
  /** the node arguments every service process starts with */
  nodeArgs: string[];
  /** after the processes exited: summarises each one's profile over `window`; returns the files written */
  summarize(services: Array<{ name: string; pid: number }>, window: ProfileWindow, howTaken: string): Promise<string[]>;
}

export async function prepareServiceProfiles(): Promise<ServiceProfiles> {
  const folder = await mkdtemp(join(tmpdir(), "bench-cpu-prof-"));
  return {
    nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${folder}`],
    async summarize(services, window, howTaken) {
      try {
        await mkdir(profilesFolder, { recursive: true });
        const files = await readdir(folder);
        const written: string[] = [];
        for (const { name, pid } of services) {
          // node names a profile CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile
          const file = files.find((candidate) => candidate.split(".")[3] === String(pid));
          if (!file) throw new Error(`no CPU profile of ${name} (pid ${pid}) in ${folder}`);
          const profile = JSON.parse(await readFile(join(folder, file), "utf8")) as CpuProfile;
          const target = join(profilesFolder, `${name}.md`);
          await writeFile(target, formatProfileSummary(name, summarizeCpuProfile(profile, window), howTaken));
          written.push(`bench/profiles/${name}.md`);
        }
        return written;
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}
