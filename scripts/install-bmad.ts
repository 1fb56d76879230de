/**
 * `npx tsx scripts/install-bmad.ts <version> [tool] [user-name]`: installs a BMAD Method release with the
 * official installer into the install cache (or reuses it) and prints its folder, ready for
 * `BMAD_ROOT=<folder> npm start`.
 */
import { ensureBmadInstall } from "@agent-orchestrator/testing/bmad-install";

const [version, tool = "claude-code", userName] = process.argv.slice(2);
if (!version) {
  console.error("usage: npx tsx scripts/install-bmad.ts <version> [tool] [user-name]   e.g. 6.12.0 claude-code Ada");
  process.exit(2);
}
console.log(await ensureBmadInstall({ version, tool, ...(userName ? { userName } : {}) }));
