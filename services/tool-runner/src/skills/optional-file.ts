import { parseTomlLayer, type TomlTable } from "@agent-orchestrator/shared/bmad";
import { AppError } from "@agent-orchestrator/shared/runtime";
import type { Sandbox, SandboxContext } from "../sandbox/index.js";

/** Reads optional files of a skill through the sandbox, collecting what went wrong as notes. */
export class OptionalFiles {
  readonly notes: string[] = [];

  constructor(
    private readonly sandbox: Sandbox,
    private readonly context: SandboxContext,
  ) {}

  /**
   * The file's text, or undefined when it is missing (quietly: most layers and configs are optional) or
   * cannot be read (with a note naming the virtual path and the error code, never a host path).
   */
  async read(virtualPath: string): Promise<string | undefined> {
    try {
      const file = await this.sandbox.read(this.context, virtualPath);
      if (file.truncated) this.notes.push(`${virtualPath} is larger than the read limit; only its start was used`);
      return file.content;
    } catch (error) {
      if (!AppError.is(error)) throw error;
      if (error.code !== "FILE_NOT_FOUND") this.notes.push(`${virtualPath} not read: ${error.code}`);
      return undefined;
    }
  }

  /** The TOML layers among `virtualPaths` that exist and parse, in order; one that does not parse is a note. */
  async tomlLayers(virtualPaths: readonly string[]): Promise<TomlTable[]> {
    const layers: TomlTable[] = [];
    for (const layerPath of virtualPaths) {
      const text = await this.read(layerPath);
      if (text === undefined) continue;
      const parsed = parseTomlLayer(text);
      if (parsed.ok) layers.push(parsed.value);
      else this.notes.push(`${layerPath} skipped: ${parsed.reason}`);
    }
    return layers;
  }
}
