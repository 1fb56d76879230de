import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createScriptFixture, type ScriptFixture } from "../testing/script-fixture.js";
import { runScriptTool } from "../tools/run-script-tool.js";

// docs/security.md "Scripts": what a script or a model-written command line may try, and what stops it. The probes are
// written into the fixture's own project copy; the sandbox, not file permissions, must stop them.
let fixture: ScriptFixture;
beforeEach(async () => {
  fixture = await createScriptFixture({ runner: { timeoutMs: 3000 } });
});
afterEach(() => fixture.cleanup());

const run = (command: string) => runScriptTool({ command }, fixture.context, fixture.deps, { call_id: "run1:1:call1" });

async function probe(name: string, code: string, args = ""): Promise<Record<string, unknown>> {
  await fixture.plant(`_bmad/scripts/${name}.py`, code);
  return run(`python3 {project-root}/_bmad/scripts/${name}.py ${args}`.trim());
}

function processesNamed(marker: string): string[] {
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).split("\n").filter((line) => line.includes(marker) && !line.includes("ps -eo"));
}

describe("a planted probe script", () => {
  it("cannot read a host secret outside the project, /etc/shadow or the project's own other files", async () => {
    const secret = path.join(fixture.outside, "secret");
    const result = await probe(
      "read_secrets",
      `import sys, json
out = {}
for p in sys.argv[1:]:
    try:
        out[p] = open(p).read()
    except Exception as e:
        out[p] = type(e).__name__
print(json.dumps(out))
`,
      `${secret} /etc/shadow /etc/passwd {project-root}/src/private.txt`,
    );
    expect(result).toMatchObject({ success: true, exit_code: 0 });
    const seen = JSON.parse(result["stdout"] as string) as Record<string, string>;
    expect(Object.values(seen)).toEqual(["FileNotFoundError", "FileNotFoundError", "FileNotFoundError", "FileNotFoundError"]);
    expect(result["stdout"]).not.toContain("4242");
    expect(result["stdout"]).not.toContain("7373");
  });

  it("cannot write to the host's /tmp, the BMAD tree or anywhere outside its session folder and project", async () => {
    const marker = `ao-probe-${process.pid}-${Date.now()}`;
    const result = await probe(
      "write_outside",
      `import sys
for p in sys.argv[1:]:
    try:
        open(p, "w").write("x"); print(p, "written")
    except Exception as e:
        print(p, type(e).__name__)
`,
      `/tmp/${marker} {project-root}/_bmad/scripts/${marker} /${marker} ${fixture.outside}/${marker} {session-folder}/${marker}`,
    );
    expect(result["stdout"]).toBe(
      [
        `/tmp/${marker} written`,
        `{project-root}/_bmad/scripts/${marker} OSError`,
        `/${marker} OSError`,
        `${fixture.outside}/${marker} FileNotFoundError`,
        `{session-folder}/${marker} written`,
        "",
      ].join("\n"),
    );
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
    expect(existsSync(path.join(fixture.project, "_bmad/scripts", marker))).toBe(false);
    expect(existsSync(path.join(fixture.outside, marker))).toBe(false);
    expect(result["files_written"]).toEqual([`{session-folder}/${marker}`]);
  });

  it("cannot connect to a TCP port listening on the host", async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const result = await probe(
        "connect",
        `import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2); print("connected")
except Exception as e:
    print(type(e).__name__)
`,
        String(port),
      );
      expect(result["stdout"]).toBe("ConnectionRefusedError\n");
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it("does not see the model key or any other variable of the tool-runner", async () => {
    const saved = process.env["OPENAI_API_KEY"];
    process.env["OPENAI_API_KEY"] = "sk-probe-secret-9191";
    try {
      const result = await probe(
        "environment",
        `import os, glob
seen = dict(os.environ)
for f in glob.glob("/proc/*/environ"):
    try:
        seen[f] = open(f, "rb").read().decode(errors="replace")
    except Exception:
        pass
print(seen)
`,
      );
      expect(result["stdout"]).not.toContain("sk-probe-secret-9191");
      expect(result["stdout"]).not.toContain("NATS_");
      expect(result["stdout"]).toContain("'HOME': '/tmp'");
    } finally {
      if (saved === undefined) delete process.env["OPENAI_API_KEY"];
      else process.env["OPENAI_API_KEY"] = saved;
    }
  });

  it("runs as an unprivileged user with the configured limits in force", async () => {
    const result = await probe(
      "limits",
      `import os, resource, json
names = ["RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE"]
print(json.dumps({"uid": os.getuid(), **{n: resource.getrlimit(getattr(resource, n))[0] for n in names}}))
`,
    );
    expect(JSON.parse(result["stdout"] as string)).toEqual({
      uid: 65534,
      RLIMIT_AS: 512 * 1024 * 1024,
      RLIMIT_CPU: 3,
      RLIMIT_NPROC: 64,
      RLIMIT_FSIZE: 64 * 1024 * 1024,
      RLIMIT_NOFILE: 256,
      RLIMIT_CORE: 0,
    });
  });

  it("fork-bombs into the process limit and leaves no process behind", async () => {
    const marker = `forkbomb${Date.now()}`;
    const result = await probe(
      marker,
      `import os, time
n = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(60); os._exit(0)
        n += 1
except OSError as e:
    print("stopped after", n)
`,
    );
    const forks = Number(/stopped after (\d+)/.exec(result["stdout"] as string)?.[1]);
    expect(forks).toBeLessThan(64);
    // the sleeping children died with the sandbox's pid namespace when the script ended
    expect(processesNamed(marker)).toEqual([]);
  });

  it("loops forever: stopped at the time limit, SCRIPT_TIMEOUT, nothing it wrote is kept and nothing survives", async () => {
    const marker = `loop${Date.now()}`;
    await fixture.plant(`_bmad/scripts/${marker}.py`, "open('early.md', 'w').write('x')\nwhile True:\n    pass\n");
    await expect(run(`python3 {project-root}/_bmad/scripts/${marker}.py`)).rejects.toMatchObject({ code: "SCRIPT_TIMEOUT" });
    expect(processesNamed(marker)).toEqual([]);
    expect((await fixture.files.index(fixture.space("session"))).files.size).toBe(0);
  });

  it("cannot allocate 2 GiB", async () => {
    const result = await probe("allocate", "b = bytearray(2 * 1024 ** 3)\nprint('allocated')\n");
    expect(result).toMatchObject({ success: false, error: { code: "SCRIPT_FAILED" }, exit_code: 1 });
    expect(result["stderr"]).toContain("MemoryError");
    expect(result["stdout"]).toBe("");
  });

  it("prints 10 MB: the output is cut to the cap with a marker", async () => {
    const result = await probe("flood", "import sys\nsys.stdout.write('x' * (10 * 1024 * 1024))\nsys.stdout.write('END')\n");
    const stdout = result["stdout"] as string;
    expect(Buffer.byteLength(stdout)).toBeLessThan(64 * 1024 + 100);
    expect(stdout).toMatch(/\[\.\.\. \d+ bytes omitted \.\.\.\]/);
    expect(stdout.endsWith("END")).toBe(true);
  });

  it("cannot store a protected name, and reaches no call record: those are in JetStream, not in its folders", async () => {
    const result = await probe(
      "protected",
      `import os
print(sorted(os.listdir(".")))
for name in (".env", ".git/config", "keys/id_rsa", ".tool-calls/forged.json"):
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    open(name, "w").write("forged")
`,
    );
    expect(result).toMatchObject({ success: true, stdout: "[]\n" });
    expect(result["files_written"]).toEqual([]);
    expect(result["files_not_kept"]).toEqual([
      { path: "{session-folder}/.env", reason: "a protected name" },
      { path: "{session-folder}/.git/config", reason: "a protected name" },
      { path: "{session-folder}/.tool-calls/forged.json", reason: "a protected name" },
      { path: "{session-folder}/keys/id_rsa", reason: "a protected name" },
    ]);
    expect((await fixture.files.index(fixture.space("session"))).files.size).toBe(0);
  });
});

describe("refused command lines", () => {
  beforeEach(async () => {
    await fixture.plant("_bmad/scripts/ok.py", "print('ran')\n");
  });

  it.each([
    ["inline code", "python3 -c 'import os; os.system(\"id\")'", "-c"],
    ["a module", "python3 -m http.server 8000", "-m"],
    ["code from stdin", "python3 - {project-root}/_bmad/scripts/ok.py", "stdin"],
    ["a shell script", "bash {project-root}/_bmad/scripts/x.sh", "`bash` is not run"],
    ["another program", "/usr/bin/env python3 {project-root}/_bmad/scripts/ok.py", "is not run"],
    ["an environment assignment", "PYTHONPATH=/x python3 {project-root}/_bmad/scripts/ok.py", "environment assignments"],
    ["a chained command", "uv run {project-root}/_bmad/scripts/ok.py; rm -rf /", "`;`"],
    ["a pipe into a shell", "python3 {project-root}/_bmad/scripts/ok.py | sh", "`|`"],
    ["command substitution", "python3 {project-root}/_bmad/scripts/ok.py $(cat /etc/passwd)", "$(…)"],
    ["backticks", "python3 {project-root}/_bmad/scripts/ok.py `id`", "backticks"],
    ["redirection", "python3 {project-root}/_bmad/scripts/ok.py > /etc/motd", "`>`"],
    ["a second line", "python3 {project-root}/_bmad/scripts/ok.py\nrm -rf /", "line break"],
    ["a variable", "python3 {project-root}/_bmad/scripts/ok.py $OPENAI_API_KEY", "$OPENAI_API_KEY"],
    ["a file pattern", "python3 {project-root}/_bmad/scripts/*.py", "file pattern"],
    ["uv with a package", "uv run --with requests {project-root}/_bmad/scripts/ok.py", "--with"],
    ["not a python file", "python3 {project-root}/_bmad/config.toml", "not a Python script"],
    ["a script in the session folder", "python3 {session-folder}/evil.py", "session folder"],
    ["a script outside the install", "python3 {project-root}/src/tool.py", "not in the BMAD install"],
    ["`../` out of the tree", "python3 {project-root}/_bmad/scripts/../../src/tool.py", "not in the BMAD install"],
    ["`../` out of the project", "python3 {project-root}/_bmad/../../outside/x.py", "not in the BMAD install"],
    ["a host path", "python3 /usr/lib/python3.11/http/server.py", "not in the BMAD install"],
  ])("refuses %s", async (_name, command, reason) => {
    await fixture.files.write(fixture.space("session"), "evil.py", "print('evil')\n", { user: "alice" });
    await fixture.plant("src/tool.py", "print('tool')\n");
    const error = await run(command).then(
      () => undefined,
      (thrown: unknown) => thrown as { code: string; message: string },
    );
    expect(error?.code).toBe("SCRIPT_REJECTED");
    expect(error?.message).toContain(reason);
    expect(error?.message).not.toContain(fixture.base);
  });

  it("refuses a link in a skill folder that points out of the install", async () => {
    await writeFile(path.join(fixture.outside, "evil.py"), "print('evil')\n");
    await symlink(path.join(fixture.outside, "evil.py"), path.join(fixture.project, ".claude/skills/demo/scripts/link.py"));
    await expect(run("python3 {project-root}/.claude/skills/demo/scripts/link.py")).rejects.toMatchObject({
      code: "SCRIPT_REJECTED",
      message: expect.stringContaining("links out of the BMAD install"),
    });
  });

  it("refuses a script another script wrote into a scratch place", async () => {
    await fixture.files.write(fixture.space("session"), ".bmad-scratch/_bmad/render/evil.py", "print('evil')\n", { user: "alice" });
    await fixture.plant("_bmad/render/evil.py", "print('host copy')\n");
    await expect(run("python3 {project-root}/_bmad/render/evil.py")).rejects.toMatchObject({ code: "SCRIPT_REJECTED" });
  });

  it("refuses an unresolved variable in an argument and says what to do", async () => {
    await expect(run("python3 {project-root}/_bmad/scripts/ok.py --workspace {doc_workspace}")).rejects.toMatchObject({
      code: "UNRESOLVED_VARIABLE",
      message: expect.stringContaining("{doc_workspace}"),
    });
  });

  it("refuses an argument that leaves the session folder", async () => {
    await expect(run("python3 {project-root}/_bmad/scripts/ok.py --out={session-folder}/../s2/x")).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
  });

  it("runs the accepted forms: python3, python, uv run with its harmless flags, a skill's own script", async () => {
    await fixture.plant(".claude/skills/demo/scripts/tool.py", "print('skill tool')\n");
    for (const command of [
      "python3 {project-root}/_bmad/scripts/ok.py",
      "python -u {project-root}/_bmad/scripts/ok.py",
      'uv run --no-cache "{project-root}/_bmad/scripts/ok.py"',
      "uv run -q {project-root}/_bmad/scripts/ok.py \\\n  --flag",
    ]) {
      expect(await run(command)).toMatchObject({ success: true, exit_code: 0, stdout: "ran\n" });
    }
    expect(await run("uv run {project-root}/.claude/skills/demo/scripts/tool.py")).toMatchObject({ stdout: "skill tool\n" });
  });

  it("refuses a script among the project's own files, which a model or a script wrote", async () => {
    await fixture.files.write(fixture.space("project"), "docs/tool.py", "print('project file')\n", { user: "alice" });
    await expect(run("python3 {project-root}/docs/tool.py")).rejects.toMatchObject({ code: "SCRIPT_REJECTED", message: expect.stringContaining("not in the BMAD install") });
  });
});
