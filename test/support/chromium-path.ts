/**
 * The Chromium the browser tests drive: `CHROMIUM_PATH` when set, else Debian's `chromium` when installed, else
 * the headless Chromium that the `@sparticuz/chromium` package carries inside itself (unpacked into the temp
 * folder on first use), so `npm install && npm test` needs no browser installed beforehand.
 */
import { existsSync } from "node:fs";
import packagedChromium from "@sparticuz/chromium";

const debianChromium = "/usr/bin/chromium";

export async function chromiumExecutable(): Promise<string> {
  const configured = process.env["CHROMIUM_PATH"];
  if (configured !== undefined && configured !== "") return configured;
  if (existsSync(debianChromium)) return debianChromium;
  return packagedChromium.executablePath();
}
