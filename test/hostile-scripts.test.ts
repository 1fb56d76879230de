import { execFileSync } from "node:child_process";
import type { FileSpaceRef, ToolContext } from "@agent-orchestrator/shared/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";
import { createScriptFixture, type ScriptFixture } from "@agent-orchestrator/tool-runner/testing";
import { runScriptTool } from "@agent-orchestrator/tool-runner";

// docs/security.md "Scripts", cases 92–104: BMAD's own scripts run code from paths the model names, so any
// Python the model saves can run in the sandbox. Each hostile program below is saved into the chat's scratch
// space as `_bmad/scripts/resolve_customization.py` of a fake project root, the way a model would with
// save_output, and run by BMAD 6.12's real party-mode resolver (`resolve_party.py --project-root
// {session-folder}/x`). What a run keeps is what the file store holds afterwards.
let fixture: ScriptFixture;
const diskMb = 8;
beforeAll(async () => {
  fixture = await createScriptFixture({
    copyFrom: await ensureBmadInstall({ version: "6.12.0", tool: "claude-code" }),
    runner: { diskBytes: diskMb * 1024 * 1024, processes: 32, memoryMb: 256, timeoutMs: 20_000 },
  });
}, 300_000);
afterAll(() => fixture.cleanup());

const partyMode = "{project-root}/.claude/skills/bmad-party-mode";

const chat = (session: string): FileSpaceRef => ({ kind: "session", id: session });

/** Saves `code` as the resolver a fake project root in chat `session` names, and runs BMAD's party-mode resolver on it. */
async function throughBmad(session: string, code: string, user = "mallory"): Promise<Record<string, unknown>> {
  await fixture.files.write(chat(session), "x/_bmad/scripts/resolve_customization.py", code, { user });
  const context: ToolContext = { session_id: session, project_id: "p1", user, agent_id: "party", bundle_path: ".claude/skills/bmad-party-mode" };
  const command = `python3 ${partyMode}/scripts/resolve_party.py --project-root {session-folder}/x --skill ${partyMode}`;
  return runScriptTool({ command }, context, fixture.deps, { call_id: `${session}:${Date.now()}` });
}

/** The paths the chat's scratch space holds, besides the resolver it was given. */
async function keptFiles(session: string): Promise<string[]> {
  const index = await fixture.files.index(chat(session));
  return [...index.files.values()].filter((file) => file.deleted !== true && !file.path.startsWith("x/")).map((file) => file.path);
}

/** A stored file of the chat as text (throws when there is none). */
async function keptText(session: string, filePath: string): Promise<string> {
  return new TextDecoder().decode((await fixture.files.read(chat(session), filePath)).content);
}

describe("model-written code run by a legitimate BMAD script", () => {
  it("case 92: leaves no setuid or setgid file on the host: the chmod is refused, and a file created with the bits comes back a plain 0644 file", async () => {
    const result = await throughBmad(
      "suid",
      `import json, os, shutil
report = {}
shutil.copy("/usr/bin/python3", "shell")
for name, mode in (("setuid", 0o4755), ("setgid", 0o2755)):
    try:
        os.chmod("shell", mode); report[name] = "allowed"
    except PermissionError:
        report[name] = "refused"
fd = os.open("born-setuid", os.O_WRONLY | os.O_CREAT, 0o6755); os.write(fd, b"x"); os.close(fd)
report["born"] = oct(os.stat("born-setuid").st_mode & 0o7777)
json.dump(report, open("report.json", "w"))
`,
    );
    expect(result).toMatchObject({ success: true });
    const report = JSON.parse(await keptText("suid", "report.json")) as Record<string, string>;
    expect(report).toMatchObject({ setuid: "refused", setgid: "refused" });
    expect(await keptFiles("suid")).toEqual(expect.arrayContaining(["shell", "born-setuid"]));
    // the store keeps bytes, never a mode: the next run that gets them back gets plain 0644 files
    const again = await throughBmad(
      "suid",
      `import json, os
json.dump({name: oct(os.stat(name).st_mode & 0o7777) for name in ("shell", "born-setuid")}, open("modes.json", "w"))
`,
    );
    expect(again).toMatchObject({ success: true });
    expect(JSON.parse(await keptText("suid", "modes.json"))).toEqual({ shell: "0o644", "born-setuid": "0o644" });
  });

  it("case 93: keeps no FIFO, device or link: mknod is refused, and a link (to /dev/zero, or out of the folder) is not brought back", async () => {
    const result = await throughBmad(
      "special",
      `import json, os
report = {}
try:
    os.mkfifo("lock"); report["fifo"] = "allowed"
except PermissionError:
    report["fifo"] = "refused"
try:
    os.mknod("null", 0o20666, os.makedev(1, 3)); report["device"] = "allowed"
except PermissionError:
    report["device"] = "refused"
os.symlink("/dev/zero", "manifest.lock")
os.symlink("../..", "up")
json.dump(report, open("report.json", "w"))
`,
    );
    expect(result).toMatchObject({ success: true, files_not_kept: expect.arrayContaining([expect.objectContaining({ path: "{session-folder}/manifest.lock", reason: "not a regular file" })]) });
    expect(JSON.parse(await keptText("special", "report.json"))).toEqual({ fifo: "refused", device: "refused" });
    expect(await keptFiles("special")).toEqual(["report.json"]);
  });

  it("case 94: a fork bomb stops at the process limit of its own sandbox, fails that call only, and another user's script runs meanwhile", async () => {
    const bomb = throughBmad(
      "fork",
      `import os, time
children = 0
for _ in range(500):
    try:
        if os.fork() == 0:
            os.close(1); os.close(2); time.sleep(30); os._exit(0)
        children += 1
    except OSError:
        break
open("forked.txt", "w").write(str(children))
time.sleep(2)
`,
    );
    await fixture.plant("_bmad/scripts/hello.py", "print('hello')\n");
    const other = runScriptTool(
      { command: "python3 {project-root}/_bmad/scripts/hello.py" },
      { session_id: "bystander", project_id: "p2", user: "alice", agent_id: "pm", bundle_path: "_bmad" },
      fixture.deps,
      { call_id: "bystander:1" },
    );
    await expect(other).resolves.toMatchObject({ success: true, stdout: "hello\n" });
    const result = await bomb;
    if (fixture.runner.usesCgroups) {
      expect(result).toMatchObject({ success: false, error: { code: "SCRIPT_LIMIT_EXCEEDED", message: expect.stringContaining("process limit") } });
      expect(result["files_written"]).toEqual([]);
    } else {
      const forked = Number(await keptText("fork", "forked.txt"));
      expect(forked).toBeLessThan(32);
    }
  });

  it("case 95: never runs as root, even when the tool-runner is root: the script's processes are an unprivileged host user's", async () => {
    const run = throughBmad("uid", "import time\ntime.sleep(3)\n");
    let uids: number[] = [];
    for (let attempt = 0; attempt < 100 && uids.length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      uids = execFileSync("ps", ["-eo", "uid=,args="], { encoding: "utf8" })
        .split("\n")
        .filter((line) => line.includes("resolve_customization.py") && line.includes("/sandbox/session/x"))
        .map((line) => Number(line.trim().split(/\s+/)[0]));
    }
    await run;
    expect(uids.length).toBeGreaterThan(0);
    for (const uid of uids) expect(uid).not.toBe(0);
    // a root tool-runner gives each slot its own user (SCRIPT_UID_BASE, 64100 in the fixture)
    if (process.getuid?.() === 0) for (const uid of uids) expect(uid).toBeGreaterThanOrEqual(64_100);
  });

  it("case 96: memory is limited for the whole sandbox: ten children of 60 MB each cannot together pass 256 MiB", async () => {
    const result = await throughBmad(
      "memory",
      `import os, time
for _ in range(10):
    if os.fork() == 0:
        block = bytearray(60 * 1024 * 1024)
        for i in range(0, len(block), 4096): block[i] = 1
        time.sleep(3); os._exit(0)
for _ in range(10):
    os.wait()
open("survived.txt", "w").write("all children lived")
`,
    );
    if (fixture.runner.usesCgroups) {
      expect(result).toMatchObject({ success: false, error: { code: "SCRIPT_LIMIT_EXCEEDED", message: expect.stringContaining("memory limit") } });
      expect(await keptFiles("memory")).toEqual([]);
    } else {
      // without cgroups only each process's address space is bounded (the start log says so)
      expect(result).toMatchObject({ success: true });
    }
  });

  it("case 97: a disk filled deep (40 folders down) stops at the disk limit; the call fails and nothing it wrote is kept", async () => {
    const result = await throughBmad(
      "deep",
      `import os
path = "/".join(["d"] * 40)
os.makedirs(path)
chunk = b"x" * (1 << 20)
try:
    with open(os.path.join(path, "fill"), "wb") as f:
        for _ in range(1000): f.write(chunk)
except OSError:
    pass
open("small.txt", "w").write("kept?")
`,
    );
    expect(result).toMatchObject({ success: false, error: { code: "SCRIPT_LIMIT_EXCEEDED", message: expect.stringContaining(`disk limit (${diskMb} MiB`) }, files_written: [] });
    expect(await keptFiles("deep")).toEqual([]);
  });

  it("case 98: a folder filled wide (12,000 files) stops at the entry limit; nothing is kept and no file is left unreported", async () => {
    const result = await throughBmad(
      "wide",
      `import os
os.makedirs("many")
for i in range(12000):
    open(f"many/{i}", "w").close()
`,
    );
    expect(result).toMatchObject({ success: false, error: { code: "SCRIPT_LIMIT_EXCEEDED", message: expect.stringContaining("files and folders") }, files_written: [] });
    expect(await keptFiles("wide")).toEqual([]);
  });

  it("case 99: sees none of the host's paths or processes: no /proc, no /sys, no /etc, nothing of the tool-runner's folders", async () => {
    const result = await throughBmad(
      "look",
      `import json, os
report = {"root": sorted(os.listdir("/")), "cwd": os.getcwd()}
for probe in ("/proc/self/mountinfo", "/proc/1/cmdline", "/sys/kernel", "/etc/passwd", "/etc/hostname"):
    try:
        report[probe] = open(probe, "rb").read(4096).decode("utf8", "replace")
    except OSError as error:
        report[probe] = type(error).__name__
report["env"] = dict(os.environ)
json.dump(report, open("report.json", "w"))
`,
    );
    expect(result).toMatchObject({ success: true });
    const text = await keptText("look", "report.json");
    const report = JSON.parse(text) as Record<string, unknown>;
    const allowed = ["bin", "dev", "lib", "lib32", "lib64", "libx32", "sandbox", "sbin", "tmp", "usr"];
    expect((report["root"] as string[]).filter((name) => !allowed.includes(name))).toEqual([]);
    for (const probe of ["/proc/self/mountinfo", "/proc/1/cmdline", "/sys/kernel", "/etc/passwd", "/etc/hostname"]) {
      expect(report[probe], probe).toMatch(/Error$/);
    }
    expect(text).not.toContain(fixture.base);
    expect(text).not.toContain(process.cwd());
    expect(Object.keys(report["env"] as object).sort()).toEqual(["HOME", "LANG", "PATH", "PWD", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONUNBUFFERED"]);
  });

  it("case 100: the seccomp filter refuses keyrings, ptrace, io_uring, mounts and new user namespaces", async () => {
    const result = await throughBmad(
      "seccomp",
      `import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
calls = {"keyctl": (250, 0, 0, 0, 0), "ptrace": (101, 16, 1, 0, 0), "io_uring_setup": (425, 8, 0, 0, 0),
         "mount": (165, 0, 0, 0, 0), "unshare_user": (272, 0x10000000, 0, 0, 0), "bpf": (321, 0, 0, 0, 0)}
report = {}
for name, (number, *args) in calls.items():
    result = libc.syscall(number, *args)
    report[name] = os.strerror(ctypes.get_errno()) if result == -1 else "allowed"
json.dump(report, open("report.json", "w"))
`,
    );
    expect(result).toMatchObject({ success: true });
    const report = JSON.parse(await keptText("seccomp", "report.json")) as Record<string, string>;
    if (process.arch === "x64") expect(Object.values(report)).toEqual(Array(6).fill("Operation not permitted"));
    else expect(Object.values(report)).not.toContain("allowed");
  });

  it("case 101: a script that kills its launcher to forge the report gets nothing kept", async () => {
    const result = await throughBmad(
      "forge",
      `import os, signal
open("planted.txt", "w").write("x")
os.kill(-1, signal.SIGKILL)
`,
    ).catch((error: unknown) => error);
    expect(result).toMatchObject({ code: "SCRIPT_FAILED", message: expect.stringContaining("nothing it wrote was kept") });
    expect(await keptFiles("forge")).toEqual([]);
  });
});
