import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder of sample agent files (v4, v6 compiled, v6 early, a messy one) that the agent-parser tests read. */
export const agentFilesFolder = join(dirname(fileURLToPath(import.meta.url)), "agent-files");
